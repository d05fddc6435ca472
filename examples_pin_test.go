package strata_test

import (
	"bytes"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"text/template"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/engine"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/strata-fleet/strata/internal/argorender"
	"github.com/strata-fleet/strata/internal/bootstrap"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/pin"
	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/status"
)

// newPin is the commit the tests pin a node to.
const newPin = "0123456789abcdef0123456789abcdef01234567"

// TestPinnedChartsRunWhatStatusSays moves the pin of every cluster of the
// examples that runs its own Argo CD, as `strata pin TARGET C` followed by a
// commit does, and follows what Argo CD does next: the root ApplicationSet
// (strata bootstrap) reads the cluster's values.yaml at the branch, where the
// commit put the new pin, and its root Application renders the cluster's
// rendered/ directory as commit C holds it, which is the output of the
// configuration before the pin (a commit cannot name itself). Every
// Application of that output whose source is the fleet repository must run C
// (after Argo CD's Helm render with the root's values), but for a source
// that follows a named revision (config.yaml's revisions:), and status, from
// the new configuration, must say C for it.
func TestPinnedChartsRunWhatStatusSays(t *testing.T) {
	configs, err := filepath.Glob(filepath.Join("examples", "*", "config", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, cfg := range configs {
		dir := filepath.Dir(filepath.Dir(cfg))
		t.Run(filepath.Base(dir), func(t *testing.T) {
			before := readFleet(t, dir)
			r0, err := render.Load(before)
			if err != nil {
				t.Fatal(err)
			}
			if r0.Fleet.Config.Repository == nil {
				t.Skip("no repository: nothing runs from it")
			}
			for _, c := range r0.Fleet.Clusters {
				if c.Hub != "" {
					continue // central model: the hub's ApplicationSet, seen by the e2e tier
				}
				t.Run(c.Name, func(t *testing.T) { checkPinnedCluster(t, before, r0, c) })
				for _, rv := range r0.Fleet.Config.Revisions {
					t.Run(c.Name+"/"+rv.Name, func(t *testing.T) { checkNamedPin(t, before, r0, c, rv.Name) })
				}
			}
		})
	}
}

func checkPinnedCluster(t *testing.T, before fstest.MapFS, r0 *render.Renderer, c *fleet.Cluster) {
	if cfg := r0.Fleet.Config; cfg.Layout.Plain() && cfg.RootKind() == fleet.RootApplicationSet {
		// Plain manifests (seed 000): no values.yaml for the root to read
		// a pin of the whole tree from; pin refuses it, naming the way.
		_, err := pin.Prepare(r0.Fleet, pin.Options{Node: c.Target.ID(), Revision: newPin, ClusterType: c.Type, Approve: true})
		if err == nil || !strings.Contains(err.Error(), "plain manifests") || !strings.Contains(err.Error(), "--name") {
			t.Fatalf("pin %s of plain manifests: %v, want it refused with the named revisions", c.Target.ID(), err)
		}
		return
	}
	r1 := pinned(t, before, r0, pin.Options{Node: c.Target.ID(), Revision: newPin, ClusterType: c.Type, Approve: true})
	b, err := bootstrap.Build(r1.Fleet, r1.Chart, c.Name, bootstrap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var root *unstructured.Unstructured
	for _, o := range b.Objects {
		if o.GetKind() == "ApplicationSet" && o.GetName() == bootstrap.RootName {
			root = o
		}
	}
	if root == nil {
		t.Fatalf("bootstrap %s: no root ApplicationSet", c.Name)
	}
	// The root's git files generator reads the cluster's values.yaml at the
	// branch, which the commit of the pin re-rendered: the root
	// Application it makes is its template with those values.
	app := generateRoot(t, r1, c, root)
	if rev, _, _ := unstructured.NestedString(app, "spec", "source", "targetRevision"); rev != newPin {
		t.Fatalf("root Application of %s follows %q, want the new pin %s", c.Name, rev, newPin)
	}
	vals, _, _ := unstructured.NestedMap(app, "spec", "source", "helm", "valuesObject")

	// rendered/ at the pinned commit: the output of the configuration
	// before the pin, rendered by Argo CD with the root's values.
	var target render.Target
	for _, tt := range r0.Targets() {
		if tt.ClusterType.Name == c.Type && tt.Node.ID() == c.Target.ID() {
			target = tt
		}
	}
	out, err := r0.Render(target)
	if err != nil {
		t.Fatal(err)
	}
	repo := r1.Fleet.Config.Repository.URL
	// A source that follows a named revision of config.yaml's revisions:
	// (the components', a group's release) runs that, not the root's pin.
	named := map[string]bool{}
	for _, r := range r1.Fleet.Config.Revisions {
		rev, _ := r1.Fleet.RevisionOf(c.Type, r1.Fleet.Config.Find(c.Target.Path()), r.Name)
		named[rev] = rev != newPin
	}
	for name, rev := range argoRevisions(t, out, vals, repo) {
		if rev != newPin && !named[rev] {
			t.Errorf("%s: Application %s runs the fleet repository at %q, want the pin %s", c.Name, name, rev, newPin)
		}
	}
	s, err := status.Compute(r1.Fleet)
	if err != nil {
		t.Fatal(err)
	}
	for _, ct := range s.ClusterTypes {
		for _, row := range ct.Targets {
			if ct.Name != c.Type || strings.Join(row.Path, "/") != c.Target.ID() {
				continue
			}
			for _, cell := range row.Cells {
				for _, v := range cell.Versions {
					if v.RepoURL == repo && v.Revision != newPin && v.RevisionName == "" {
						t.Errorf("status at %s: %s %s shows %q, want the pin %s", row.Name, cell.Component, v.Resource, v.Revision, newPin)
					}
				}
			}
		}
	}
}

// newNamedPin is the commit the tests pin a named revision to.
const newNamedPin = "fedcba9876543210fedcba9876543210fedcba98"

// checkNamedPin moves the named revision name of cluster c, as `strata pin
// TARGET C --name NAME` followed by a commit does. The root keeps its
// revision and renders the new rendered/ tree, which holds C where a
// template reads .Values.cluster.revisions.<name>: every source that status
// says follows the named revision must run C once Argo CD has rendered the
// tree with the root's values, and no other source may.
func checkNamedPin(t *testing.T, before fstest.MapFS, r0 *render.Renderer, c *fleet.Cluster, name string) {
	r1 := pinned(t, before, r0, pin.Options{Node: c.Target.ID(), Revision: newNamedPin, ClusterType: c.Type, Name: name, Approve: true})
	target := render.Target{ClusterType: r1.Fleet.ClusterType(c.Type), Node: r1.Fleet.Config.Find(c.Target.Path())}
	out, err := r1.Render(target)
	if err != nil {
		t.Fatal(err)
	}
	b, err := bootstrap.Build(r1.Fleet, r1.Chart, c.Name, bootstrap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var vals map[string]any
	for _, o := range b.Objects {
		if o.GetKind() == "ApplicationSet" && o.GetName() == bootstrap.RootName {
			vals, _, _ = unstructured.NestedMap(generateRoot(t, r1, c, o), "spec", "source", "helm", "valuesObject")
		}
	}
	// A revision chosen by an inventory label is the label's, whatever the
	// node pins: the pin moves only the others.
	want, _ := r1.Fleet.RevisionOf(c.Type, target.Node, name)
	running := map[string]bool{} // the items with a source at the new pin
	for item, objs := range argoObjects(t, out, vals) {
		for _, o := range objs {
			for _, src := range objectSources(o) {
				if src["targetRevision"] == newNamedPin {
					running[item] = true
				}
			}
		}
	}
	s, err := status.Compute(r1.Fleet)
	if err != nil {
		t.Fatal(err)
	}
	following := map[string]bool{}
	for _, ct := range s.ClusterTypes {
		for _, row := range ct.Targets {
			if ct.Name != c.Type || strings.Join(row.Path, "/") != c.Target.ID() {
				continue
			}
			for _, cell := range row.Cells {
				for _, v := range cell.Versions {
					if v.RevisionName != name {
						continue
					}
					following[v.Resource] = want == newNamedPin
					if v.Revision != want {
						t.Errorf("status at %s: %s %s follows %s at %q, want %s", row.Name, cell.Component, v.Resource, name, v.Revision, want)
					}
				}
			}
		}
	}
	// A file is named after its object, with config.yaml's
	// render.namePrefix (ops-01-cert-manager for the item cert-manager).
	for item := range running {
		for r := range following {
			if strings.HasSuffix(item, "-"+r) {
				delete(running, item)
				running[r] = true
			}
		}
	}
	maps.DeleteFunc(following, func(_ string, pinned bool) bool { return !pinned })
	if d := cmp.Diff(following, running); d != "" {
		t.Errorf("objects with a source at the new pin of %s: status (-) and Argo CD (+) differ:\n%s", name, d)
	}
}

// objectSources returns the sources of an Application or of the template of
// an ApplicationSet, and an ApplicationSet's git generators (their
// revision as a targetRevision), nested in matrix and merge generators.
func objectSources(o *unstructured.Unstructured) []map[string]any {
	spec := []string{"spec"}
	if o.GetKind() == "ApplicationSet" {
		spec = []string{"spec", "template", "spec"}
	}
	var out []map[string]any
	if src, ok, _ := unstructured.NestedMap(o.Object, append(spec, "source")...); ok {
		out = append(out, src)
	}
	srcs, _, _ := unstructured.NestedSlice(o.Object, append(spec, "sources")...)
	for _, s := range srcs {
		if m, ok := s.(map[string]any); ok {
			out = append(out, m)
		}
	}
	var gens func(list []any)
	gens = func(list []any) {
		for _, g := range list {
			m, _ := g.(map[string]any)
			if git, ok := m["git"].(map[string]any); ok {
				out = append(out, map[string]any{"repoURL": git["repoURL"], "targetRevision": git["revision"]})
			}
			for _, k := range []string{"matrix", "merge"} {
				if inner, ok := m[k].(map[string]any); ok {
					list, _ := inner["generators"].([]any)
					gens(list)
				}
			}
		}
	}
	list, _, _ := unstructured.NestedSlice(o.Object, "spec", "generators")
	gens(list)
	return out
}

// generateRoot is what the ApplicationSet controller makes of the root
// ApplicationSet of cluster c: its template, executed (goTemplate,
// missingkey=error) with the cluster's rendered values.yaml of the fleet r
// (what its git files generator reads at the branch) and the path of it;
// with plain manifests, the path alone (its git directories generator).
func generateRoot(t *testing.T, r *render.Renderer, c *fleet.Cluster, set *unstructured.Unstructured) map[string]any {
	t.Helper()
	out, err := r.Render(render.Target{ClusterType: r.Fleet.ClusterType(c.Type), Node: r.Fleet.Config.Find(c.Target.Path())})
	if err != nil {
		t.Fatal(err)
	}
	params := map[string]any{} // plain manifests: a git directories generator
	for _, f := range out.Files {
		if f.Path == out.Target.Dir()+"/values.yaml" {
			if err := yaml.Unmarshal(f.Data, &params); err != nil {
				t.Fatal(err)
			}
		}
	}
	params["path"] = map[string]any{"path": out.Target.Dir()}
	tmpl, _, _ := unstructured.NestedMap(set.Object, "spec", "template")
	return execute(t, tmpl, params).(map[string]any)
}

// execute runs every string of v as a Go template with params.
func execute(t *testing.T, v any, params map[string]any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			out[k] = execute(t, x, params)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = execute(t, x, params)
		}
		return out
	case string:
		tm, err := template.New("").Option("missingkey=error").Parse(v)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := tm.Execute(&b, params); err != nil {
			t.Fatalf("the root ApplicationSet's template %q: %v", v, err)
		}
		return b.String()
	}
	return v
}

// argoRevisions renders a target's output as Argo CD's Helm render does with
// the root object's values, and returns the targetRevision of each source of
// the repository repo, by Application.
func argoRevisions(t *testing.T, out *render.Output, vals map[string]any, repo string) map[string]string {
	t.Helper()
	revs := map[string]string{}
	for _, u := range slices.Concat(slices.Collect(maps.Values(argoObjects(t, out, vals)))...) {
		if u.GetKind() != "Application" {
			continue
		}
		srcs, _, _ := unstructured.NestedSlice(u.Object, "spec", "sources")
		if src, ok, _ := unstructured.NestedMap(u.Object, "spec", "source"); ok {
			srcs = append(srcs, src)
		}
		for _, s := range srcs {
			if m, ok := s.(map[string]any); ok && m["repoURL"] == repo {
				rev, _ := m["targetRevision"].(string)
				revs[u.GetName()] = rev
			}
		}
	}
	return revs
}

// argoObjects renders a target's output as Argo CD's Helm render does with
// the root object's values, and returns the objects by the item that made
// them (the name of their file, templates/<item>.yaml; with plain
// manifests, their name).
func argoObjects(t *testing.T, out *render.Output, vals map[string]any) map[string][]*unstructured.Unstructured {
	t.Helper()
	if out.Target.ClusterType.Layout.Plain() { // plain manifests, read as they are, by name
		plain, err := argorender.Render(out, vals)
		if err != nil {
			t.Fatal(err)
		}
		objs := map[string][]*unstructured.Unstructured{}
		for name, o := range plain {
			objs[name] = []*unstructured.Unstructured{o}
		}
		return objs
	}
	tree := fstest.MapFS{}
	for _, f := range out.Files {
		tree[f.Path] = &fstest.MapFile{Data: f.Data, Mode: 0o644}
	}
	files, err := render.ReadChartFiles(tree, out.Target.Dir())
	if err != nil {
		t.Fatal(err)
	}
	ch, err := loader.LoadFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	rv, err := util.ToRenderValues(ch, vals, common.ReleaseOptions{Name: "root", Namespace: "argocd", IsInstall: true}, common.DefaultCapabilities)
	if err != nil {
		t.Fatal(err)
	}
	manifests, err := engine.Render(ch, rv)
	if err != nil {
		t.Fatalf("Argo CD's Helm render of %s: %v", out.Target.Dir(), err)
	}
	objs := map[string][]*unstructured.Unstructured{}
	for file, m := range manifests {
		item := strings.TrimSuffix(path.Base(file), ".yaml")
		for _, doc := range bytes.Split([]byte(m), []byte("\n---\n")) {
			u := &unstructured.Unstructured{}
			if err := yaml.Unmarshal(doc, &u.Object); err != nil || u.GetKind() == "" {
				continue
			}
			objs[item] = append(objs[item], u)
		}
	}
	return objs
}

// readFleet reads an example's config/ and argocd-apps/ into memory.
func readFleet(t *testing.T, dir string) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	for _, top := range []string{"config", "argocd-apps"} {
		err := fs.WalkDir(os.DirFS(dir), top, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				if os.IsNotExist(err) {
					return fs.SkipAll
				}
				return err
			}
			data, err := os.ReadFile(filepath.Join(dir, p))
			m[p] = &fstest.MapFile{Data: data, Mode: 0o644}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// pinned loads the fleet of before with opts' pin made in its config.yaml.
func pinned(t *testing.T, before fstest.MapFS, r0 *render.Renderer, opts pin.Options) *render.Renderer {
	t.Helper()
	p, err := pin.Prepare(r0.Fleet, opts)
	if err != nil {
		t.Fatal(err)
	}
	after := fstest.MapFS{}
	for k, v := range before {
		after[k] = v
	}
	after[fleet.ConfigPath] = &fstest.MapFile{Data: p.Content}
	r1, err := render.Load(after)
	if err != nil {
		t.Fatal(err)
	}
	return r1
}
