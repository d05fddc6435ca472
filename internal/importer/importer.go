package importer

import (
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Options are what a format needs besides the source.
type Options struct {
	// Dir is the source directory inside the file system (".": its root).
	Dir string
	// ClusterType names the cluster type the fleet gets; "" for the
	// format's default.
	ClusterType string
	// Dimensions name the levels of the targets' paths, outermost first;
	// nil for the format's default.
	Dimensions []string
	// ClusterSecrets are cluster Secrets no file of the repository says
	// (eks-fleet: the hub's, which Terraform writes; what a spoke's takes
	// from an external store).
	ClusterSecrets []SecretFile
	// Show turns a path of the file system into the one errors name (the
	// path from the user's working directory); nil leaves it as it is.
	Show func(string) string
}

// show is o.Show(p), or p.
func (o Options) show(p string) string {
	if o.Show == nil {
		return p
	}
	return o.Show(p)
}

// A Format reads one kind of repository.
type Format struct {
	Name string
	// Summary says in one line what the format reads.
	Summary string
	Read    func(fsys fs.FS, opts Options) (*Source, error)
}

var formats = []Format{
	{Name: "applications", Summary: "Argo CD Application and ApplicationSet manifests, a directory (or a kustomization) per target", Read: readApplications},
	{Name: "rosa-shards", Summary: "a shards file (config.yaml: shards:) and render.py's layout, as the ROSA regional platform's argocd/", Read: readRosaShards},
	{Name: "app-of-apps", Summary: "a Helm chart of Argo CD Applications with a values file per cluster, each cluster's root rendering it", Read: readAppOfApps},
	{Name: "eks-fleet", Summary: "a releases file, fleet member files and a hub's ApplicationSets over the cluster Secrets, as the EKS fleet's", Read: readEKSFleet},
}

// Formats lists the formats import knows, by name.
func Formats() []Format { return slices.Clone(formats) }

// Lookup returns the format called name.
func Lookup(name string) (Format, error) {
	var names []string
	for _, f := range formats {
		if f.Name == name {
			return f, nil
		}
		names = append(names, f.Name)
	}
	return Format{}, fmt.Errorf("unknown format %q (formats: %s)", name, strings.Join(names, ", "))
}

// Source is a repository as a format reads it: the targets and the Argo CD
// objects its tooling gives each.
type Source struct {
	ClusterType string
	Dimensions  []string
	Targets     []*Target
	Findings    []Finding
	// Roots is config.yaml's roots: that keeps the targets' roots (their
	// kind, name, project and syncPolicy); nil when the source has none to
	// keep.
	Roots *yaml.Node
	// Config holds more keys and values of config.yaml, in pairs (cluster
	// facts, named revisions); Files more files of the fleet (the
	// inventory), by path.
	Config []*yaml.Node
	Files  map[string][]byte
	// Generalize, when set, rewrites the item Build made of object o of
	// target t (after the cluster's name became its template) so that the
	// targets share more of it: each template it writes must give t's own
	// value back, which Verify checks.
	Generalize func(t *Target, o *Object, item *yaml.Node) *yaml.Node
	// Layout is config.yaml's layout: that writes each target where the
	// source's tooling does (and its values file, Target.Values); nil for
	// strata's default layout.
	Layout *yaml.Node
	// Revisions are the named revisions (config.yaml's revisions:) that
	// the targets pin (Target.Pins), in order.
	Revisions []string
}

// A Target is one leaf of the sequence and the objects its root deploys.
type Target struct {
	// Path holds the node names, one per dimension.
	Path []string
	// ClusterType is the target's, when the source has several; "" for
	// the Source's.
	ClusterType string
	// Dir is where the repository's tooling reads the target's objects.
	Dir     string
	Objects []*Object
	// Root is the Application that deploys the target, when the source
	// has one apart from its objects (an app-of-apps chart's root).
	Root *Object
	// Values is the plain values file the source's tooling writes beside
	// the target (a mapping; Source.Layout places it), nil for none.
	Values *yaml.Node
	// Pins are the target's named revisions (Source.Revisions), by name.
	Pins map[string]string
}

// ID is the target's path as strata names it (dev/dc11a).
func (t *Target) ID() string { return strings.Join(t.Path, "/") }

// Label names the target in the report: its path, after its cluster type
// when the source has several.
func (t *Target) Label() string {
	if t.ClusterType != "" {
		return t.ClusterType + "/" + t.ID()
	}
	return t.ID()
}

// types lists the cluster types of the targets, in their order.
func (s *Source) types() []string {
	var out []string
	for _, t := range s.Targets {
		if ct := s.typeOf(t); !slices.Contains(out, ct) {
			out = append(out, ct)
		}
	}
	return out
}

// typeOf is t's cluster type.
func (s *Source) typeOf(t *Target) string {
	if t.ClusterType != "" {
		return t.ClusterType
	}
	return s.ClusterType
}

// An Object is an Argo CD object of the source, as its tooling builds it.
type Object struct {
	Kind, Name string
	// At is where it is written (file:line), "" when it is not known.
	At  string
	Doc *yaml.Node
	// Written is the object as At's file has it, for the lines of its
	// fields; nil when Doc is not what it says (a kustomization's output).
	Written *yaml.Node
	// Component names the component the object is an item of, when it is
	// not its name (the objects of several targets that one ApplicationSet
	// made, each named after its cluster); "" for its name.
	Component string
}

// Key names the object as the report does: Kind/name.
func (o *Object) Key() string { return o.Kind + "/" + o.Name }

// A Finding is something of the source that the import could not carry
// over, or a fault of the source that it found, and why.
type Finding struct {
	// Target is the target's path ("" for all or none).
	Target string `json:"target,omitempty"`
	// Object is Kind/name, Field a dotted path in it.
	Object string `json:"object,omitempty"`
	Field  string `json:"field,omitempty"`
	// At is the file and line it was read from.
	At     string `json:"at,omitempty"`
	Reason string `json:"reason"`
	// Fault is true when the source is at fault (what its own tooling
	// would fail on or silently ignore), false when strata cannot say it.
	Fault bool `json:"fault,omitempty"`
	// dropped is the path of a field left out of the object, which
	// Verify leaves out of the source's object too; leftOut says the
	// whole object is.
	dropped []string
	leftOut bool
}

func (f Finding) String() string {
	var b strings.Builder
	if f.Target != "" {
		b.WriteString(f.Target + ": ")
	}
	switch {
	case f.Object != "" && f.Field != "":
		b.WriteString(f.Object + " " + f.Field + ": ")
	case f.Object != "":
		b.WriteString(f.Object + ": ")
	case f.Field != "":
		b.WriteString(f.Field + ": ")
	}
	b.WriteString(f.Reason)
	if f.At != "" {
		b.WriteString(" (" + f.At + ")")
	}
	return b.String()
}

// sortFindings orders findings by target, object, field.
func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Target != b.Target {
			return a.Target < b.Target
		}
		if a.Object != b.Object {
			return a.Object < b.Object
		}
		return a.Field < b.Field
	})
}
