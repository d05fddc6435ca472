package importer

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/strata-fleet/strata/internal/hydrate"
)

// The app-of-apps format: a Helm chart of Argo CD Applications with a
// values file per cluster (Thakurvaibhav/k8s's ADR-006:
// charts/app-of-apps/values.<cluster>.yaml), each cluster's root an
// Application that renders the chart with its values file
// (argocd-bootstrap-apps/<cluster>.yaml). The roots are found in the
// repository by what they read (spec.source.path is the chart's
// directory); each is a target, rendered with Helm's engine as Argo CD
// renders it (the root's release name and namespace, value files,
// values). A cluster's values that set cluster.env put the targets in two
// dimensions, environments and clusters; otherwise clusters only.

// valuesFile matches a cluster's values file and names the cluster.
var valuesFile = regexp.MustCompile(`^values[.-]([A-Za-z0-9][A-Za-z0-9_.-]*)\.ya?ml$`)

// aoaTarget is a cluster of an app-of-apps chart and how its root renders
// the chart.
type aoaTarget struct {
	cluster, env string
	rel          hydrate.Release
	valueFiles   []string // relative to the chart
	root         *Object  // nil when no root was found
}

func readAppOfApps(fsys fs.FS, opts Options) (*Source, error) {
	dir := path.Clean(opts.Dir)
	if !hydrate.IsFile(fsys, path.Join(dir, "Chart.yaml")) {
		return nil, fmt.Errorf("%s is not a Helm chart: it has no Chart.yaml", opts.show(dir))
	}
	src := &Source{ClusterType: opts.ClusterType}
	if src.ClusterType == "" {
		src.ClusterType = ClusterTypeFor(dir)
	}
	roots, err := findRoots(fsys, dir, src)
	if err != nil {
		return nil, err
	}
	var targets []*aoaTarget
	if len(roots) == 0 {
		if targets, err = valuesTargets(fsys, dir, opts); err != nil {
			return nil, err
		}
		src.Findings = append(src.Findings, Finding{At: dir, Reason: "no root Application reads the chart (spec.source.path: " + dir +
			"); each values.<cluster>.yaml is a target, rendered as release <cluster> in namespace argocd"})
	}
	for _, r := range roots {
		t, err := rootTarget(r, opts)
		if err != nil {
			return nil, err
		}
		targets = append(targets, t)
	}
	withEnv := true
	for _, t := range targets {
		t.env = clusterEnv(fsys, dir, t.valueFiles)
		withEnv = withEnv && t.env != ""
	}
	src.Dimensions = opts.Dimensions
	if src.Dimensions == nil {
		src.Dimensions = []string{"clusters"}
		if withEnv {
			src.Dimensions = []string{"environments", "clusters"}
		}
	}
	seen := map[string]string{}
	var found []*Object // the targets' roots, in their order
	for _, at := range targets {
		p := []string{at.cluster}
		if len(src.Dimensions) == 2 {
			p = []string{at.env, at.cluster}
		}
		t := &Target{Path: p, Dir: dir}
		where := opts.show(path.Join(dir, firstOr(at.valueFiles, "values.yaml")))
		if at.root != nil {
			where = opts.show(at.root.At)
		}
		if prev, ok := seen[t.ID()]; ok {
			return nil, fmt.Errorf("two roots render the chart for cluster %s: %s and %s", t.ID(), prev, where)
		}
		seen[t.ID()] = where
		objs, skip, err := hydrate.HelmChart(fsys, dir, at.rel)
		switch {
		case err != nil:
			return nil, fmt.Errorf("rendering %s for %s (%s) with Helm: %w", opts.show(dir), t.ID(), where, err)
		case skip != "":
			return nil, fmt.Errorf("cannot render %s for %s offline: %s", opts.show(dir), t.ID(), skip)
		}
		at0 := path.Join(dir, firstOr(at.valueFiles, "values.yaml"))
		for _, ho := range objs {
			docs, _, err := readDocuments(at0, ho.YAML)
			if err != nil {
				return nil, err
			}
			for _, d := range docs {
				o, err := objectOf(d)
				if err != nil {
					return nil, fmt.Errorf("%s renders for %s: %w", opts.show(dir), t.ID(), err)
				}
				o.At, o.Written = at0, nil
				t.Objects = append(t.Objects, o)
			}
		}
		if at.root != nil {
			found = append(found, at.root)
			t.Root = at.root
		}
		src.Targets = append(src.Targets, t)
	}
	var why string
	if src.Roots, why = rootsConfig(src.Targets, found); src.Roots == nil && len(found) > 0 {
		src.Findings = append(src.Findings, Finding{At: dir, Reason: "config.yaml's roots: cannot keep the roots' names, project and syncPolicy: " + why +
			"; strata bootstrap writes its own roots (root, in each cluster's project)"})
	}
	for i, at := range targets {
		if at.root != nil {
			src.Findings = append(src.Findings, rootFinding(src.Targets[i], at, src.ClusterType, src.Roots != nil))
		}
	}
	return src, nil
}

func firstOr(list []string, def string) string {
	if len(list) > 0 {
		return list[0]
	}
	return def
}

// findRoots returns the Applications of the repository's manifest files
// (outside the chart and .git) whose source reads dir.
func findRoots(fsys fs.FS, dir string, src *Source) ([]*Object, error) {
	var roots []*Object
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p == dir || d.Name() == ".git" || d.Name() == "node_modules" {
				return fs.SkipDir
			}
			return nil
		}
		if !manifestFile(p) {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() > 1<<20 {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil || !strings.Contains(string(data), "Application") {
			return nil
		}
		docs, _, err := readDocuments(p, data)
		if err != nil {
			return nil // not this format's file; the root that matters parses
		}
		for _, doc := range docs {
			o, err := objectOf(doc)
			if err != nil || o.Kind != "Application" {
				continue
			}
			s := get(get(o.Doc, "spec"), "source")
			if q := str(s, "path"); q != "" && path.Clean(q) == dir {
				roots = append(roots, o)
			}
		}
		return nil
	})
	slices.SortFunc(roots, func(a, b *Object) int { return strings.Compare(a.At, b.At) })
	return roots, err
}

// rootTarget reads how root renders the chart: Argo CD's release for its
// source and destination, the cluster named by its first value file.
func rootTarget(root *Object, opts Options) (*aoaTarget, error) {
	spec := get(root.Doc, "spec")
	var source map[string]any
	if err := decodeNode(get(spec, "source"), &source); err != nil {
		return nil, fmt.Errorf("%s: %w", opts.show(root.At), err)
	}
	t := &aoaTarget{root: root, rel: hydrate.ReleaseOf(source, root.Name, str(get(spec, "destination"), "namespace"))}
	t.valueFiles = append(t.valueFiles, lookupSeq(spec, "source", "helm", "valueFiles")...)
	t.cluster = root.Name
	for _, f := range t.valueFiles {
		if m := valuesFile.FindStringSubmatch(path.Base(f)); m != nil {
			t.cluster = m[1]
			break
		}
	}
	return t, nil
}

// valuesTargets makes a target of each values.<cluster>.yaml of dir.
func valuesTargets(fsys fs.FS, dir string, opts Options) ([]*aoaTarget, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var out []*aoaTarget
	for _, e := range entries {
		if m := valuesFile.FindStringSubmatch(e.Name()); m != nil && !e.IsDir() {
			src := map[string]any{"helm": map[string]any{"valueFiles": []any{e.Name()}}}
			out = append(out, &aoaTarget{cluster: m[1], valueFiles: []string{e.Name()}, rel: hydrate.ReleaseOf(src, m[1], "argocd")})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s has no values.<cluster>.yaml and no root Application reads it: no targets", opts.show(dir))
	}
	return out, nil
}

// clusterEnv returns cluster.env of the values files (the last that sets
// it), or "".
func clusterEnv(fsys fs.FS, dir string, files []string) string {
	env := ""
	for _, f := range append([]string{"values.yaml"}, files...) {
		data, err := fs.ReadFile(fsys, path.Join(dir, f))
		if err != nil {
			continue
		}
		var v struct {
			Cluster struct {
				Env string `json:"env"`
			} `json:"cluster"`
		}
		if sigsyaml.Unmarshal(data, &v) == nil && v.Cluster.Env != "" {
			env = v.Cluster.Env
		}
	}
	return env
}

// rootFinding says what becomes of a root: strata bootstrap makes the
// cluster's root, kept (config.yaml's roots:) or strata's, which reads
// rendered/ at the fleet's revision.
func rootFinding(t *Target, at *aoaTarget, ct string, kept bool) Finding {
	spec := get(at.root.Doc, "spec")
	rev := str(get(spec, "source"), "targetRevision")
	if rev == "" {
		rev = "HEAD"
	}
	root := "strata bootstrap makes the root (strata's: keep the root's name, project and syncPolicy by hand)"
	if kept {
		root = "strata bootstrap makes the root as config.yaml's roots: keeps it (an Application of this name, project and syncPolicy"
		if labels := get(get(at.root.Doc, "metadata"), "labels"); labels != nil && len(labels.Content) > 0 {
			root += "; not its labels"
		}
		root += ")"
	}
	return Finding{Target: t.ID(), Object: at.root.Key(), At: at.root.At,
		Reason: fmt.Sprintf("the cluster's root: it renders %s at %s with %s; %s, which reads rendered/%s/%s at the node's revision: "+
			"pin the node to %s (revision:) once that revision holds rendered/",
			t.Dir, rev, strings.Join(at.valueFiles, ", "), root, ct, t.ID(), rev)}
}

// decodeNode decodes n as sigs.k8s.io/yaml does (JSON's types).
func decodeNode(n *yaml.Node, v any) error {
	if n == nil {
		return nil
	}
	data, err := yaml.Marshal(n)
	if err != nil {
		return err
	}
	return sigsyaml.Unmarshal(data, v)
}

// lookupSeq returns the strings of the list at path in n.
func lookupSeq(n *yaml.Node, path ...string) []string {
	l := lookup(n, path)
	if l == nil || l.Kind != yaml.SequenceNode {
		return nil
	}
	var out []string
	for _, c := range l.Content {
		out = append(out, c.Value)
	}
	return out
}
