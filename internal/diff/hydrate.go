package diff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/strata-fleet/strata/internal/argorender"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/hydrate"
	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/textdiff"
)

// Hydrated is what the change does to the objects one source of an
// Application builds (package hydrate), at the targets where it is the
// same change.
type Hydrated struct {
	Application string `json:"application"`
	// Source is the source's field: spec.source, spec.sources[1].
	Source string `json:"source"`
	// Before and After are the source's builds at the base and now (nil
	// where the Application has no such source).
	Before  *hydrate.Build `json:"before,omitempty"`
	After   *hydrate.Build `json:"after,omitempty"`
	Targets []string       `json:"targets"`
	// Objects are the objects that change, in key order.
	Objects []ObjectChange `json:"objects,omitempty"`
	// NotBuilt says why the changed source was not hydrated: strata
	// builds offline, and says so rather than skip it.
	NotBuilt string `json:"notBuilt,omitempty"`
}

// ObjectChange is one object a source builds that the change changes.
type ObjectChange struct {
	Object string `json:"object"` // Kind namespace/name
	Status string `json:"status"`
	Diff   string `json:"diff"`
}

// hydrator compares what the Applications' sources build on both sides.
type hydrator struct {
	base, head     *side
	baseFS, headFS fs.FS
	baseB, headB   *hydrate.Builder
	changed        map[string]bool
	context        int
	groups         map[string]*Hydrated
	order          []string
	// sources says that files outside config/ and rendered/ (where
	// sources live) differ: then every target's Applications are
	// hydrated, else only those of the targets that change.
	sources bool
}

func newHydrator(opts Options, base, head *side, changed []string) *hydrator {
	h := &hydrator{base: base, head: head, baseFS: opts.Base.FS, headFS: opts.Head, changed: map[string]bool{},
		context: opts.Context, groups: map[string]*Hydrated{}}
	repo := func(s *side) string {
		if s.r == nil || s.r.Fleet.Config.Repository == nil {
			return ""
		}
		return hydrate.RepoKey(s.r.Fleet.Config.Repository.URL)
	}
	limits := func(s *side) fleet.RenderLimits {
		if s.r == nil {
			return fleet.RenderLimits{} // the defaults
		}
		return s.r.Fleet.Config.Render.Limits
	}
	h.baseB = &hydrate.Builder{FS: opts.Base.FS, Repo: repo(base), ChartCache: opts.ChartCache, Limits: limits(base)}
	h.headB = &hydrate.Builder{FS: opts.Head, Repo: repo(head), ChartCache: opts.ChartCache, Limits: limits(head)}
	for _, id := range changed {
		h.changed[id] = true
	}
	h.sources = !sameTree(opts.Base.FS, opts.Head, ".", "config", ".git",
		base.r.Fleet.Config.OutputRoot(), head.r.Fleet.Config.OutputRoot())
	return h
}

// run hydrates the Applications of every target of order.
func (h *hydrator) run(order []string) ([]Hydrated, error) {
	for _, id := range order {
		if !h.sources && !h.changed[id] {
			continue // the same Applications, the same files: nothing changes
		}
		after, err := h.apps(h.head, id)
		if err != nil {
			return nil, err
		}
		before := after // an unchanged target: the same Applications
		if _, ok := h.base.targets[id]; !ok {
			before = nil
		} else if h.changed[id] {
			if before, err = h.apps(h.base, id); err != nil {
				return nil, err
			}
		}
		name := h.head.names[id]
		if name == "" {
			name = h.base.names[id]
		}
		for _, app := range unionKeys(before, after) {
			bs, as := sourcesOfApp(before[app]), sourcesOfApp(after[app])
			for _, field := range unionKeys(bs, as) {
				h.compare(name, app, field, before[app], after[app], bs[field], as[field])
			}
		}
	}
	out := make([]Hydrated, 0, len(h.order))
	for _, k := range h.order {
		out = append(out, *h.groups[k])
	}
	return out, nil
}

// apps are the Applications of target id on side s, as Argo CD renders the
// target's chart: a template without an expression is the object as it
// is; the others are rendered with Helm's engine (package argorender).
func (h *hydrator) apps(s *side, id string) (map[string]map[string]any, error) {
	t, ok := s.targets[id]
	files := s.files[id]
	if !ok || files == nil {
		return nil, nil
	}
	apps := map[string]map[string]any{}
	var templated []string
	plain := t.ClusterType.Layout.Plain() // layout.manifests: read as they are, below
	for _, name := range sortedKeys(files) {
		res, isTemplate := strings.CutPrefix(name, "templates/")
		if plain || !isTemplate || path.Ext(name) != ".yaml" {
			continue
		}
		if bytes.Contains(files[name], []byte("{{")) {
			templated = append(templated, strings.TrimSuffix(res, ".yaml"))
			continue
		}
		var m map[string]any
		if err := yaml.Unmarshal(files[name], &m); err != nil {
			return nil, fmt.Errorf("%s/%s: %w", t.Dir(), name, err)
		}
		if m["kind"] == "Application" {
			md, _ := m["metadata"].(map[string]any)
			n, _ := md["name"].(string)
			apps[n] = m
		}
	}
	if len(templated) == 0 && !plain {
		return apps, nil
	}
	out := &render.Output{Target: t}
	for _, name := range sortedKeys(files) {
		if !strings.HasPrefix(name, "../") { // not the values file (layout.values)
			out.Files = append(out.Files, render.File{Path: t.Dir() + "/" + name, Data: files[name]})
		}
	}
	objs, err := argorender.Render(out, nil, templated...)
	if err != nil {
		return nil, err
	}
	for name, o := range objs {
		if o.GetKind() == "Application" {
			apps[name] = o.Object
		}
	}
	return apps, nil
}

// compare hydrates one source before and after and records what changes.
func (h *hydrator) compare(target, app, field string, before, after, bs, as map[string]any) {
	var bb, ab *hydrate.Build
	if bs != nil {
		bb = h.baseB.Build(bs, app, destNamespace(before))
	}
	if as != nil {
		ab = h.headB.Build(as, app, destNamespace(after))
	}
	key := fmt.Sprintf("%s\x00%s\x00%p\x00%p", app, field, bb, ab)
	if g := h.groups[key]; g != nil {
		g.Targets = append(g.Targets, target)
		return
	}
	g := &Hydrated{Application: app, Source: field, Before: bb, After: ab, Targets: []string{target}}
	if reason := notBuilt(bb, ab); reason != "" {
		if sameJSON(bs, as) && destNamespace(before) == destNamespace(after) && !h.localChanged(bs) {
			return // the same source, the same files: nothing changes
		}
		g.NotBuilt = reason
	} else if g.Objects = compareObjects(bb, ab, h.context); len(g.Objects) == 0 {
		return
	}
	h.groups[key] = g
	h.order = append(h.order, key)
}

// localChanged reports whether the files of a source inside the
// repository differ between the base and now.
func (h *hydrator) localChanged(src map[string]any) bool {
	p, _ := src["path"].(string)
	if p == "" || src["chart"] != nil {
		return false
	}
	dir := path.Clean(strings.TrimPrefix(p, "./"))
	return !sameTree(h.baseFS, h.headFS, dir)
}

// notBuilt says why either build is missing its objects, or "".
func notBuilt(before, after *hydrate.Build) string {
	var parts []string
	for _, x := range []struct {
		side string
		b    *hydrate.Build
	}{{"before", before}, {"after", after}} {
		switch {
		case x.b == nil:
		case x.b.Err != "":
			parts = append(parts, fmt.Sprintf("%s (%s): it does not build: %s", x.side, x.b.Where, x.b.Err))
		case x.b.Skip != "":
			parts = append(parts, fmt.Sprintf("%s (%s): %s", x.side, x.b.Where, x.b.Skip))
		}
	}
	return strings.Join(parts, "; ")
}

// compareObjects lists the objects that differ between two builds.
func compareObjects(before, after *hydrate.Build, context int) []ObjectChange {
	a, b := objectMap(before), objectMap(after)
	var out []ObjectChange
	for _, k := range unionKeys(a, b) {
		x, inA := a[k]
		y, inB := b[k]
		if inA && inB && bytes.Equal(x, y) {
			continue
		}
		c := ObjectChange{Object: k, Status: Changed}
		from, to := "a/"+k, "b/"+k
		switch {
		case !inA:
			c.Status, from = Added, "/dev/null"
		case !inB:
			c.Status, to = Removed, "/dev/null"
		}
		c.Diff = textdiff.Unified(from, to, x, y, context)
		out = append(out, c)
	}
	return out
}

func objectMap(b *hydrate.Build) map[string][]byte {
	m := map[string][]byte{}
	if b == nil {
		return m
	}
	for _, o := range b.Objects {
		m[o.Key()] = append(m[o.Key()], o.YAML...)
	}
	return m
}

// sourcesOfApp maps an Application's source fields to the sources.
func sourcesOfApp(app map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	spec, _ := app["spec"].(map[string]any)
	if m, ok := spec["source"].(map[string]any); ok {
		out["spec.source"] = m
	}
	if list, ok := spec["sources"].([]any); ok {
		for i, it := range list {
			if m, ok := it.(map[string]any); ok {
				out[fmt.Sprintf("spec.sources[%d]", i)] = m
			}
		}
	}
	return out
}

func destNamespace(app map[string]any) string {
	spec, _ := app["spec"].(map[string]any)
	d, _ := spec["destination"].(map[string]any)
	ns, _ := d["namespace"].(string)
	return ns
}

func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// sameTree reports whether dir holds the same files in a and b, but for
// the directories skip directly under dir.
func sameTree(a, b fs.FS, dir string, skip ...string) bool {
	files := func(fsys fs.FS) map[string][]byte {
		m := map[string][]byte{}
		_ = fs.WalkDir(fsys, dir, func(p string, e fs.DirEntry, err error) error {
			switch {
			case err != nil:
			case e.IsDir() && slices.Contains(skip, p):
				return fs.SkipDir
			case !e.IsDir():
				m[p], _ = fs.ReadFile(fsys, p)
			}
			return nil
		})
		return m
	}
	x, y := files(a), files(b)
	if len(x) != len(y) {
		return false
	}
	for p, d := range x {
		if e, ok := y[p]; !ok || !bytes.Equal(d, e) {
			return false
		}
	}
	return true
}

func unionKeys[V any](a, b map[string]V) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range []map[string]V{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
