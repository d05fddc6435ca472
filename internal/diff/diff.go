package diff

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/textdiff"
	"github.com/strata-fleet/strata/internal/values"
)

// Options says what to compare.
type Options struct {
	// Base is the fleet at the base revision, Head the fleet now.
	Base *Revision
	Head fs.FS
	// Target, when set, is a glob that limits the comparison to the targets
	// it matches, or whose parents it matches ("production/*").
	Target string
	// Context is the number of unchanged lines around each change
	// (default 3).
	Context int
	// Hydrate compares what the Applications' sources build (Base.FS must
	// then hold the whole repository: ReadRevisionAll); ChartCache is
	// Helm's repository cache, where remote charts are looked for.
	Hydrate    bool
	ChartCache string
}

// Result is what the change does to the rendered output.
type Result struct {
	Base       string `json:"base"`
	BaseCommit string `json:"baseCommit"`
	// Targets is the number of targets compared (in either fleet, after
	// the filter); Changed how many of them change.
	Targets int `json:"targets"`
	Changed int `json:"changed"`
	// Resources names the resources that change, in name order.
	Resources []string `json:"resources"`
	// Changes are the targets that change, in rollout order (removed
	// targets last).
	Changes []TargetChange `json:"changes"`
	// Hydrated, with Options.Hydrate, is what the change does to the
	// objects the Applications' sources build.
	Hydrated []Hydrated `json:"hydrated,omitempty"`
}

// Change statuses.
const (
	Added   = "added"
	Removed = "removed"
	Changed = "changed"
)

// TargetChange is a target whose output changes.
type TargetChange struct {
	Target string `json:"target"`
	// ID is the target's path under rendered/: "<type>/<node>".
	ID     string           `json:"-"`
	Status string           `json:"status"`
	Files  []ResourceChange `json:"files"`
}

// ResourceChange is one file of a target's output that changes.
type ResourceChange struct {
	// Name is the resource's name, or the file name for values.yaml and
	// Chart.yaml.
	Name string `json:"name"`
	// Kind is the resource's kind (Application, ApplicationSet), empty for
	// the other files.
	Kind   string `json:"kind,omitempty"`
	Path   string `json:"path"` // under rendered/
	Status string `json:"status"`
	Diff   string `json:"diff"`
	// Deletes says what Argo CD deletes with a removed Application or
	// ApplicationSet (destructive changes are called out).
	Deletes *Deletion `json:"deletes,omitempty"`
}

// Summary is one line: "3 of 27 targets change: cert-manager, prometheus".
func (r *Result) Summary() string {
	if r.Changed == 0 {
		return fmt.Sprintf("no target changes (%s compared with %s)", plural(r.Targets, "target"), r.Base)
	}
	s := fmt.Sprintf("%d of %s change", r.Changed, plural(r.Targets, "target"))
	if len(r.Resources) > 0 {
		s += ": " + strings.Join(r.Resources, ", ")
	}
	return s
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// side is one fleet to compare: its renderer and its targets (after the
// filter) by ID, in rollout order, and the files of those rendered.
type side struct {
	r       *render.Renderer
	order   []string
	names   map[string]string
	targets map[string]render.Target
	files   map[string]map[string][]byte
}

// Compare renders both fleets and compares them. Targets whose inputs are
// the same on both sides (equal render fingerprints) are not rendered.
func Compare(opts Options) (*Result, error) {
	if opts.Context == 0 {
		opts.Context = 3
	}
	if opts.Target != "" {
		if err := fleet.TargetPattern(opts.Target).Check(); err != nil {
			return nil, err
		}
	}
	head, err := load(opts.Head, opts.Target)
	if err != nil {
		return nil, err
	}
	base := &side{names: map[string]string{}, targets: map[string]render.Target{}}
	if !opts.Base.Empty {
		if base, err = load(opts.Base.FS, opts.Target); err != nil {
			return nil, fmt.Errorf("the fleet at %s (%s): %w", opts.Base.Rev, short(opts.Base.Commit), err)
		}
	}
	if opts.Target != "" && len(head.order) == 0 && len(base.order) == 0 {
		return nil, noMatch(opts.Target, head.r)
	}
	order := append([]string{}, head.order...)
	for _, id := range base.order {
		if _, ok := head.targets[id]; !ok {
			order = append(order, id)
		}
	}
	var changed []string
	for _, id := range order {
		tb, inBase := base.targets[id]
		th, inHead := head.targets[id]
		if inBase && inHead && base.r.Fingerprint(tb) == head.r.Fingerprint(th) {
			continue
		}
		changed = append(changed, id)
	}
	rendered := changed
	var hy *hydrator
	if opts.Hydrate {
		if hy = newHydrator(opts, base, head, changed); hy.sources {
			rendered = head.order // every target's Applications are hydrated
		}
	}
	if err := head.render(rendered); err != nil {
		return nil, err
	}
	if err := base.render(changed); err != nil {
		return nil, fmt.Errorf("the fleet at %s (%s): %w", opts.Base.Rev, short(opts.Base.Commit), err)
	}
	res := &Result{Base: opts.Base.Rev, BaseCommit: opts.Base.Commit, Targets: len(order), Resources: []string{}, Changes: []TargetChange{}}
	resources := map[string]bool{}
	for _, id := range changed {
		tc := compareTarget(id, base, head, opts.Context)
		for _, rc := range tc.Files {
			if rc.Kind != "" {
				resources[rc.Name] = true
			}
		}
		if len(tc.Files) > 0 {
			res.Changes = append(res.Changes, tc)
		}
	}
	res.Changed = len(res.Changes)
	if opts.Hydrate {
		if res.Hydrated, err = hy.run(order); err != nil {
			return nil, fmt.Errorf("--hydrate: %w", err)
		}
	}
	for r := range resources {
		res.Resources = append(res.Resources, r)
	}
	sort.Strings(res.Resources)
	return res, nil
}

// targetDir is the directory of the target id where head's layout puts it,
// or base's for a target head removed.
func targetDir(id string, base, head *side) string {
	if t, ok := head.targets[id]; ok {
		return t.Dir()
	}
	if t, ok := base.targets[id]; ok {
		return t.Dir()
	}
	return render.OutputDir + "/" + id
}

// compareTarget compares the files of one target on both sides.
func compareTarget(id string, base, head *side, context int) TargetChange {
	a, b := base.files[id], head.files[id]
	tc := TargetChange{Target: head.names[id], ID: id, Status: Changed}
	switch {
	case a == nil:
		tc.Status = Added
	case b == nil:
		tc.Status, tc.Target = Removed, base.names[id]
	}
	dir := targetDir(id, base, head)
	for _, file := range union(a, b) {
		before, inBase := a[file]
		after, inHead := b[file]
		if inBase && inHead && bytes.Equal(before, after) {
			continue
		}
		rc := ResourceChange{Path: path.Join(dir, file), Status: Changed}
		switch {
		case !inBase:
			rc.Status = Added
		case !inHead:
			rc.Status = Removed
		}
		rc.Name, rc.Kind = resourceOf(file, after, before)
		if rc.Status == Removed {
			rc.Deletes = deletionOf(rc.Kind, file, before)
		}
		rc.Diff = unified(rc.Path, before, after, inBase, inHead, context)
		tc.Files = append(tc.Files, rc)
	}
	return tc
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// load loads the fleet in fsys and lists its targets that match the filter.
func load(fsys fs.FS, filter string) (*side, error) {
	r, err := render.Load(fsys)
	if err != nil {
		return nil, err
	}
	f := r.Fleet
	s := &side{r: r, names: map[string]string{}, targets: map[string]render.Target{}}
	for _, t := range s.r.Targets() {
		name := t.Node.ID()
		if len(f.ClusterTypes) > 1 {
			name = t.ID()
		}
		if !fleet.TargetPattern(filter).Matches(t.ClusterType.Name, t.Node.ID()) {
			continue
		}
		s.order = append(s.order, t.ID())
		s.names[t.ID()] = name
		s.targets[t.ID()] = t
	}
	return s, nil
}

// render renders those of the targets ids that the side has.
func (s *side) render(ids []string) error {
	s.files = map[string]map[string][]byte{}
	var targets []render.Target
	for _, id := range ids {
		if t, ok := s.targets[id]; ok {
			targets = append(targets, t)
		}
	}
	if len(targets) == 0 {
		return nil
	}
	outs, err := s.r.RenderAll(targets, nil)
	if err != nil {
		return err
	}
	for _, o := range outs {
		files := map[string][]byte{}
		prefix := o.Target.Dir() + "/"
		for _, file := range o.Files {
			files[strings.TrimPrefix(file.Path, prefix)] = file.Data
		}
		for _, file := range o.Beside { // the values file: ../<type>-values.yaml
			files[relPath(o.Target.Dir(), file.Path)] = file.Data
		}
		s.files[o.Target.ID()] = files
	}
	return nil
}

// relPath returns the slash path p relative to the directory dir, both
// relative to the repository: "../x-values.yaml" for a file beside dir.
func relPath(dir, p string) string {
	d, q := strings.Split(dir, "/"), strings.Split(p, "/")
	i := 0
	for i < len(d) && i < len(q)-1 && d[i] == q[i] {
		i++
	}
	return strings.Repeat("../", len(d)-i) + strings.Join(q[i:], "/")
}

// LineKind classifies a line of a unified diff (ResourceChange.Diff):
// "file" (the ---/+++ header), "hunk" (@@), "add", "del" or "ctx".
func LineKind(line string) string {
	switch {
	case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
		return "file"
	case strings.HasPrefix(line, "@@"):
		return "hunk"
	case strings.HasPrefix(line, "+"):
		return "add"
	case strings.HasPrefix(line, "-"):
		return "del"
	}
	return "ctx"
}

// union lists the files of a and b in path order: templates first (by
// resource), then values.yaml and Chart.yaml.
func union(a, b map[string][]byte) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range []map[string][]byte{a, b} {
		for p := range m {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	rank := func(p string) int {
		switch {
		case strings.HasPrefix(p, "templates/"):
			return 0
		case p == "values.yaml":
			return 1
		}
		return 2
	}
	sort.Slice(out, func(i, j int) bool {
		if ri, rj := rank(out[i]), rank(out[j]); ri != rj {
			return ri < rj
		}
		return out[i] < out[j]
	})
	return out
}

// resourceOf names the resource a file holds: its metadata.name and kind
// for templates/<name>.yaml, the file name for the others.
func resourceOf(file string, data ...[]byte) (name, kind string) {
	name = strings.TrimSuffix(path.Base(file), ".yaml")
	if !strings.HasPrefix(file, "templates/") {
		return path.Base(file), ""
	}
	for _, d := range data {
		if len(d) == 0 {
			continue
		}
		if v, err := values.Decode(file, d); err == nil {
			if k := v.Get("kind"); k != nil && k.Kind == values.String {
				return name, k.Text
			}
		}
	}
	return name, "resource"
}

// unified is a unified diff of a file's two versions.
func unified(p string, before, after []byte, inBase, inHead bool, context int) string {
	from, to := "a/"+p, "b/"+p
	if !inBase {
		from = "/dev/null"
	}
	if !inHead {
		to = "/dev/null"
	}
	return textdiff.Unified(from, to, before, after, context)
}
