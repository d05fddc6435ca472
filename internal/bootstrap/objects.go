package bootstrap

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/strata-fleet/strata/internal/argorender"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/render"

	"github.com/strata-fleet/strata/internal/suggest"
)

// Names strata gives the objects it bootstraps, and the conventions of Argo
// CD and of seed 000 it follows.
const (
	DefaultNamespace = argorender.Namespace
	// DefaultSelfApp is the name of the Application through which Argo CD
	// manages itself.
	DefaultSelfApp = "argocd"
	// RootName is the root Application of a cluster running its own Argo
	// CD; a hub's root ApplicationSets are RootName-<cluster type>.
	RootName = argorender.Release
	// InClusterServer is how Argo CD reaches the cluster it runs in.
	InClusterServer = "https://kubernetes.default.svc"
	// Annotations of the identity secret, named as seed 000 names them.
	RepoAnnotation        = fleet.RepoAnnotation
	RevisionAnnotation    = fleet.RevisionAnnotation
	ClusterNameAnnotation = fleet.ClusterNameAnnotation
)

// Model is how a cluster is managed.
type Model string

// The two models.
const (
	Distributed Model = "distributed"
	Central     Model = "central"
)

// Options tune Build.
type Options struct {
	// Namespace is Argo CD's namespace (default argocd).
	Namespace string
	// SelfApp is the target's Application Argo CD manages itself with
	// (default argocd).
	SelfApp string
	// Credentials register a spoke on its hub (central model).
	Credentials *Credentials
}

// Bundle is what one cluster needs.
type Bundle struct {
	Cluster string `json:"cluster"`
	Model   Model  `json:"model"`
	// ApplyTo is the cluster whose API server receives the objects: the
	// cluster itself, or its hub.
	ApplyTo  string                       `json:"applyTo"`
	Revision string                       `json:"revision"`
	Objects  []*unstructured.Unstructured `json:"objects"`
	// Root is the name of the cluster's root Application (config.yaml's
	// roots.name), made by the root ApplicationSet of the same name, or
	// by its hub's (roots.kind: ApplicationSet), or the root itself.
	Root string `json:"-"`
	// Plain is set when the targets hold plain manifests
	// (layout.manifests): the roots read their directories as they are.
	Plain bool `json:"-"`
	// Notes explain what is missing or left out, for the user.
	Notes []string `json:"notes,omitempty"`
}

// Build returns the bundle of the cluster called name.
func Build(f *fleet.Fleet, chart *render.Chart, name string, opts Options) (*Bundle, error) {
	if opts.Namespace == "" {
		opts.Namespace = DefaultNamespace
	}
	if opts.SelfApp == "" {
		opts.SelfApp = DefaultSelfApp
	}
	c := f.Cluster(name)
	if c == nil {
		if len(f.Clusters) == 0 {
			return nil, suggest.Unknownf("unknown cluster %q: the inventory is empty (add %s/%s.yaml: type, target, and optionally server, hub, labels)", name, fleet.ClustersDir, name)
		}
		return nil, suggest.Unknown("cluster", name, f.ClusterNames())
	}
	if f.Config.Repository == nil {
		return nil, fmt.Errorf("bootstrapping %s: %s declares no repository; add repository: {url: <where Argo CD pulls this repository>, revision: main}", name, fleet.ConfigPath)
	}
	b := &builder{f: f, chart: chart, opts: opts}
	if c.Hub != "" {
		return b.central(c)
	}
	return b.distributed(c)
}

type builder struct {
	f     *fleet.Fleet
	chart *render.Chart
	opts  Options
	// rendered holds the targets rendered so far, by cluster.
	rendered map[string]*render.Output
}

// distributed is the bundle of a cluster running its own Argo CD: the
// AppProjects its root objects name (see appProjects) come before them.
func (b *builder) distributed(c *fleet.Cluster) (*Bundle, error) {
	bundle := &Bundle{Cluster: c.Name, Model: Distributed, ApplyTo: c.Name, Revision: b.f.ClusterRevision(c), Root: b.f.Config.RootName(c), Plain: b.f.Config.Layout.Plain()}
	bundle.Objects = append(bundle.Objects, b.namespace(), b.identitySecret(c, InClusterServer, inClusterConfig))
	self, err := b.selfApp(c)
	if err != nil {
		return nil, err
	}
	uses := []projectUse{rootProject(c)}
	if self != nil {
		uses = append(uses, selfAppProject(c, self))
	}
	for _, s := range b.f.Spokes(c.Name) {
		if b.f.Config.RootKind() != fleet.RootApplicationSet {
			break // each spoke's bootstrap applies its own root and project
		}
		u := rootProject(s)
		u.by += " (made by root-" + s.Type + " in the Argo CD of " + c.Name + ")"
		uses = append(uses, u)
	}
	projects, err := b.appProjects(c, uses)
	if err != nil {
		return nil, err
	}
	bundle.Objects = append(bundle.Objects, projects...)
	bundle.Objects = append(bundle.Objects, b.rootApplication(c))
	if self != nil {
		bundle.Objects = append(bundle.Objects, self)
	} else {
		bundle.Notes = append(bundle.Notes, fmt.Sprintf("no self-management Application: %s renders no Application named %s for %s; add a component that defines it (see examples/seed-004-self-managed) so that Argo CD manages its own configuration",
			c.Type, b.opts.SelfApp, c.Target.ID()))
	}
	if b.f.Config.RootKind() == fleet.RootApplicationSet {
		for _, ct := range b.spokeTypes(c) {
			bundle.Objects = append(bundle.Objects, b.rootApplicationSet(c.Name, ct))
		}
	} else {
		bundle.Notes = append(bundle.Notes, b.pinNote(c))
	}
	return bundle, nil
}

// pinNote says, for a root of kind Application, how a pin reaches it.
func (b *builder) pinNote(c *fleet.Cluster) string {
	return fmt.Sprintf("the root %s is an Application at revision %s (roots.kind: Application in %s): a pin of %s reaches the cluster when its root is applied again (strata bootstrap %s --apply)",
		b.f.Config.RootName(c), b.f.ClusterRevision(c), fleet.ConfigPath, c.Target.ID(), c.Name)
}

func (b *builder) central(c *fleet.Cluster) (*Bundle, error) {
	bundle := &Bundle{Cluster: c.Name, Model: Central, ApplyTo: c.Hub, Revision: b.f.ClusterRevision(c), Root: b.f.Config.RootName(c), Plain: b.f.Config.Layout.Plain()}
	switch {
	case b.opts.Credentials != nil && c.ExternalSecret != nil:
		return nil, fmt.Errorf("cluster %s registers on %s through externalSecret (%s): give no credentials, or remove externalSecret", c.Name, c.Hub, c.File.Path)
	case b.opts.Credentials != nil:
		cr := b.opts.Credentials
		if cr.Server != "" && strings.TrimSuffix(cr.Server, "/") != strings.TrimSuffix(c.Server, "/") {
			return nil, fmt.Errorf("the credentials (%s) are for %s, but %s says server: %s: use the context of cluster %s", cr.Source, cr.Server, c.File.Path, c.Server, c.Name)
		}
		bundle.Objects = append(bundle.Objects, b.identitySecret(c, c.Server, cr.Config))
	case c.ExternalSecret != nil:
		bundle.Objects = append(bundle.Objects, b.externalSecret(c))
	default:
		return nil, fmt.Errorf("registering %s on its hub %s needs its credentials: --credentials-context CONTEXT (of a kubeconfig) or --token-file FILE, or externalSecret in %s", c.Name, c.Hub, c.File.Path)
	}
	projects, err := b.appProjects(b.f.Cluster(c.Hub), []projectUse{rootProject(c)})
	if err != nil {
		return nil, err
	}
	bundle.Objects = append(bundle.Objects, projects...)
	if b.f.Config.RootKind() == fleet.RootApplication {
		bundle.Objects = append(bundle.Objects, b.rootApplication(c))
		bundle.Notes = append(bundle.Notes, b.pinNote(c))
		return bundle, nil
	}
	bundle.Objects = append(bundle.Objects, b.rootApplicationSet(c.Hub, c.Type))
	return bundle, nil
}

// spokeTypes are the cluster types of the clusters hub manages.
func (b *builder) spokeTypes(hub *fleet.Cluster) []string {
	var out []string
	for _, s := range b.f.Spokes(hub.Name) {
		if !slices.Contains(out, s.Type) {
			out = append(out, s.Type)
		}
	}
	slices.Sort(out)
	return out
}

// namespace is Argo CD's namespace. It carries a label of strata's: an
// applied object that sets no field is recorded with no managed fields, and
// the next apply would write it again ("configured") to record them.
func (b *builder) namespace() *unstructured.Unstructured {
	ns := object("v1", "Namespace", "", b.opts.Namespace, nil)
	ns.SetLabels(map[string]string{"app.kubernetes.io/part-of": "argocd"})
	return ns
}

// clusterValues are the values Argo CD's Helm render of the cluster's
// rendered/ directory needs: the cluster's name, the node of every
// dimension, and the revision it runs (in the root objects, pinnedRevision:
// it comes from Git).
func (b *builder) clusterValues(c *fleet.Cluster, revision string) map[string]any {
	cl := map[string]any{"name": c.Name}
	path := c.Target.Path()
	for i, d := range b.f.Config.Dimensions {
		cl[d.Singular] = path[i]
	}
	cl["revision"] = revision
	return map[string]any{"cluster": cl}
}

// renderedPath is the cluster's directory in the repository, where the
// fleet's layout puts its target.
func (b *builder) renderedPath(c *fleet.Cluster) string {
	return b.f.Config.TargetDir(c.Type, c.Target)
}

// pinnedRevision is, in a root ApplicationSet's template, the revision the
// target runs: cluster.revision of its rendered values.yaml, which the git
// files generator reads at the branch (repository.revision). A pin moved by
// strata pin and committed with the re-rendered values.yaml reaches Argo CD
// through Git: the root objects themselves never name a pin.
const pinnedRevision = "{{ .cluster.revision }}"

// BranchRevision is the revision the root objects follow: the repository's
// revision, else HEAD.
func BranchRevision(f *fleet.Fleet) string { return f.Config.Branch() }

// rootApplication is the root of a cluster running its own Argo CD: an
// ApplicationSet whose git files generator reads the cluster's rendered
// values.yaml at the branch, and makes the Application named root that
// renders the cluster's rendered/ directory at the revision pinned there
// (seed 000's root ApplicationSet with its pinned revision, the cluster
// generator aside: the root is the cluster's own).
//
// With roots.kind: Application the root is that Application itself, at the
// revision pinned now (b.plainRoot).
func (b *builder) rootApplication(c *fleet.Cluster) *unstructured.Unstructured {
	if b.f.Config.RootKind() == fleet.RootApplication {
		return b.plainRoot(c)
	}
	name := b.f.Config.RootName(c)
	gen := map[string]any{
		"repoURL":  b.f.Config.Repository.URL,
		"revision": BranchRevision(b.f),
		"files":    []any{map[string]any{"path": b.renderedPath(c) + "/values.yaml"}},
	}
	source := map[string]any{
		"repoURL":        b.f.Config.Repository.URL,
		"targetRevision": pinnedRevision,
		"path":           "{{ .path.path }}",
		"helm":           map[string]any{"valuesObject": b.clusterValues(c, pinnedRevision)},
	}
	if b.f.Config.Layout.Plain() {
		// Plain manifests: no values.yaml to read a pin from (and no
		// revision pin: fleet.checkPlainPins), no Helm to give values to.
		delete(gen, "files")
		gen["directories"] = []any{map[string]any{"path": b.renderedPath(c)}}
		source["targetRevision"] = b.f.ClusterRevision(c)
		delete(source, "helm")
	}
	return object("argoproj.io/v1alpha1", "ApplicationSet", b.opts.Namespace, name, map[string]any{
		"spec": map[string]any{
			"goTemplate":        true,
			"goTemplateOptions": []any{"missingkey=error"},
			"generators":        []any{map[string]any{"git": gen}},
			"template": map[string]any{
				"metadata": map[string]any{"name": name},
				"spec": map[string]any{
					"project":     c.Project,
					"source":      source,
					"destination": map[string]any{"server": InClusterServer, "namespace": b.opts.Namespace},
					"syncPolicy":  b.rootSync(),
				},
			},
		},
	})
}

// plainRoot is the root of cluster c as an Application (roots.kind:
// Application): the cluster's rendered directory at the revision its
// target is pinned to now, in the Argo CD that manages it, rendered with
// the cluster's values as strata's root ApplicationSet's Application is.
func (b *builder) plainRoot(c *fleet.Cluster) *unstructured.Unstructured {
	rev := b.f.ClusterRevision(c)
	source := map[string]any{
		"repoURL":        b.f.Config.Repository.URL,
		"targetRevision": rev,
		"path":           b.renderedPath(c),
		"helm":           map[string]any{"valuesObject": b.clusterValues(c, rev)},
	}
	if b.f.Config.Layout.Plain() {
		delete(source, "helm") // plain manifests: a directory source
	}
	return object("argoproj.io/v1alpha1", "Application", b.opts.Namespace, b.f.Config.RootName(c), map[string]any{
		"spec": map[string]any{
			"project":     c.Project,
			"source":      source,
			"destination": map[string]any{"server": InClusterServer, "namespace": b.opts.Namespace},
			"syncPolicy":  b.rootSync(),
		},
	})
}

func autoSync() map[string]any {
	return map[string]any{"automated": map[string]any{"prune": true, "selfHeal": true}}
}

// rootSync is the root objects' syncPolicy: config.yaml's roots.syncPolicy,
// else autoSync.
func (b *builder) rootSync() map[string]any {
	if r := b.f.Config.Roots; r != nil && r.SyncPolicy != nil {
		return runtime.DeepCopyJSON(r.SyncPolicy)
	}
	return autoSync()
}

// spokeProject is, in a hub's root ApplicationSet's template, the project
// of the spoke's root: the project its cluster secret carries (a secret
// registered before strata wrote it has none: default).
var spokeProject = fmt.Sprintf("{{ index .metadata.annotations %q | default %q }}", fleet.ProjectAnnotation, fleet.DefaultProject)

// rootApplicationSet is the hub's root ApplicationSet for the spokes of
// cluster type ct: seed 000's cluster x git matrix. Per spoke (a cluster
// secret of the hub with the cluster type's label), the git files generator
// reads the spoke's rendered values.yaml at the revision its secret names
// (the branch), and the Application renders the spoke's rendered/
// directory at the revision pinned there, into the hub's Argo CD, whose
// Applications target the spoke by name, in the spoke's project (one
// ApplicationSet serves spokes of several projects). A spoke not rendered
// yet makes no Application rather than a failing one.
func (b *builder) rootApplicationSet(hub, ct string) *unstructured.Unstructured {
	label := func(k string) string { return fmt.Sprintf("{{ index .metadata.labels %q }}", k) }
	annotation := func(k string) string { return fmt.Sprintf("{{ index .metadata.annotations %q }}", k) }
	dims := b.f.Config.Dimensions
	path := b.f.Config.Layout.Expand(ct, func(i int) string { return label(dims[i].Singular) }, len(dims))
	name := b.f.Config.RootNameTemplate(true, ct, "{{ .name }}", func(i int) string { return label(dims[i].Singular) })
	cluster := map[string]any{"name": "{{ .name }}", "revision": pinnedRevision}
	for _, d := range dims {
		cluster[d.Singular] = label(d.Singular)
	}
	clusters := map[string]any{"clusters": map[string]any{"selector": map[string]any{"matchLabels": map[string]any{
		fleet.SecretTypeLabel: "cluster", fleet.ClusterTypeLabel: ct, fleet.HubLabel: hub,
	}}}}
	gen := map[string]any{
		"repoURL":  annotation(RepoAnnotation),
		"revision": annotation(RevisionAnnotation),
		"files":    []any{map[string]any{"path": path + "/values.yaml"}},
	}
	source := map[string]any{
		"repoURL":        annotation(RepoAnnotation),
		"targetRevision": pinnedRevision,
		"path":           "{{ .path.path }}",
		"helm":           map[string]any{"valuesObject": map[string]any{"cluster": cluster}},
	}
	if b.f.Config.Layout.Plain() { // as in rootApplication
		delete(gen, "files")
		gen["directories"] = []any{map[string]any{"path": path}}
		source["targetRevision"] = annotation(RevisionAnnotation)
		delete(source, "helm")
	}
	git := map[string]any{"git": gen}
	return object("argoproj.io/v1alpha1", "ApplicationSet", b.opts.Namespace, RootName+"-"+ct, map[string]any{
		"spec": map[string]any{
			"goTemplate":        true,
			"goTemplateOptions": []any{"missingkey=error"},
			"generators":        []any{map[string]any{"matrix": map[string]any{"generators": []any{clusters, git}}}},
			"template": map[string]any{
				"metadata": map[string]any{
					"name":   name,
					"labels": map[string]any{fleet.ClusterTypeLabel: ct, fleet.HubLabel: hub},
				},
				"spec": map[string]any{
					"project":     spokeProject,
					"source":      source,
					"destination": map[string]any{"server": InClusterServer, "namespace": b.opts.Namespace},
					"syncPolicy":  b.rootSync(),
				},
			},
		},
	})
}

// object returns an unstructured object with its type and metadata, and
// the top-level fields of rest.
func object(apiVersion, kind, namespace, name string, rest map[string]any) *unstructured.Unstructured {
	meta := map[string]any{"name": name}
	if namespace != "" {
		meta["namespace"] = namespace
	}
	o := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": meta}
	for k, v := range rest {
		o[k] = v
	}
	return &unstructured.Unstructured{Object: o}
}
