package pin

import (
	"fmt"
	"maps"
	"os"
	"strings"

	"github.com/strata-fleet/strata/internal/atomicfile"
	"github.com/strata-fleet/strata/internal/fleet"

	"github.com/strata-fleet/strata/internal/suggest"
)

// Options says which pin to move where.
type Options struct {
	// Node is the path of a sequence node: "production/prod-sector-1".
	Node     string
	Revision string
	// ClusterType limits the pin to one cluster type ("" for all).
	ClusterType string
	// Name is the named revision to move (config.yaml's revisions:), ""
	// for the root's revision: the node's revision:.
	Name string
	// Approve passes the manual gates the change is behind.
	Approve bool
	// Command is the command line to repeat in a gate error.
	Command string
}

// Plan is what moving a pin does.
type Plan struct {
	Node        string `json:"node"`
	Revision    string `json:"revision"`
	ClusterType string `json:"clusterType,omitempty"`
	// Name is the named revision moved, "" for the root's.
	Name string `json:"name,omitempty"`
	// Changes are the effective revisions that change, per cluster type
	// and target, in rollout order.
	Changes []Change `json:"changes"`
	// Gates are the manual gates the changed targets are behind.
	Gates []string `json:"gates,omitempty"`
	// Clusters are the inventory's clusters whose revision changes: their
	// root objects follow the pin once it is committed to the branch they
	// read (package bootstrap).
	Clusters []string `json:"clusters"`
	// File is the configuration file, Content its new text; Changed is
	// false when the node already had this pin.
	File    string `json:"file"`
	Changed bool   `json:"changed"`
	Content []byte `json:"-"`
}

// Change is a target whose revision changes for one cluster type.
type Change struct {
	ClusterType string `json:"clusterType"`
	Target      string `json:"target"`
	From        string `json:"from"`
	To          string `json:"to"`
}

// GateError is a pin change behind a manual gate without approval.
type GateError struct {
	Gates   []string
	Command string
}

func (e *GateError) Error() string {
	q := make([]string, len(e.Gates))
	for i, g := range e.Gates {
		q[i] = fmt.Sprintf("%q", g)
	}
	return fmt.Sprintf("the pin changes targets behind the manual gate %s; approve it with: %s --approve", strings.Join(q, ", "), e.Command)
}

// Prepare plans moving a pin: it checks the node and the cluster type
// (which must be placed at the node, config.yaml's at:) and computes the
// changes over the targets render makes, the cluster types where they are
// placed. It does not refuse a plan behind a manual gate: Gate does, so that
// a caller can check the revision first (Resolve) and ask for the approval
// last.
func Prepare(f *fleet.Fleet, opts Options) (*Plan, error) {
	if err := fleet.CheckRevision(opts.Revision); err != nil {
		return nil, err
	}
	path := strings.Split(strings.Trim(opts.Node, "/"), "/")
	n := f.Config.Find(path)
	if n == nil || n.Depth == 0 {
		return nil, unknownNode(f, opts.Node)
	}
	types, err := placed(f, n, opts.ClusterType)
	if err != nil {
		return nil, err
	}
	if opts.Name == "" && f.Config.Layout.Plain() && f.Config.RootKind() == fleet.RootApplicationSet {
		return nil, plainPinError(f)
	}
	old := n.Revision
	// revisionOf is the revision the pin moves, of a target.
	revisionOf := func(f *fleet.Fleet, ct string, t *fleet.Node) string { return f.Revision(ct, t) }
	if opts.Name != "" {
		if f.Config.NamedRevision(opts.Name) == nil {
			var names []string
			for _, r := range f.Config.Revisions {
				names = append(names, r.Name)
			}
			return nil, suggest.UnknownFlag("--name", "named revision (config.yaml's revisions:)", opts.Name, names)
		}
		old = n.Revisions[opts.Name]
		revisionOf = func(f *fleet.Fleet, ct string, t *fleet.Node) string {
			rev, _ := f.RevisionOf(ct, t, opts.Name)
			return rev
		}
	}
	// types are every cluster type placed at n: the others keep their
	// revision when a pin for all becomes one per type.
	want := newRevision(old, opts, types)
	p := &Plan{Node: n.ID(), Revision: opts.Revision, ClusterType: opts.ClusterType, Name: opts.Name, File: fleet.ConfigPath, Changes: []Change{}, Clusters: []string{}}
	if sameRevision(old, want) {
		return p, nil
	}
	content, err := edit(f.Config.File.Data, f.Config, n, opts.Name, want)
	if err != nil {
		return nil, fmt.Errorf("editing %s: %w", fleet.ConfigPath, err)
	}
	after, err := reload(f, content)
	if err != nil {
		return nil, fmt.Errorf("editing %s: the edited file does not load (set the pin by hand): %w", fleet.ConfigPath, err)
	}
	if err := sameExceptPin(f.Config.File.Data, content, f.Config, n, opts.Name); err != nil {
		return nil, fmt.Errorf("editing %s: %w (set the pin by hand)", fleet.ConfigPath, err)
	}
	got := after.Config.Find(path).Revision
	if opts.Name != "" {
		got = after.Config.Find(path).Revisions[opts.Name]
	}
	if !sameRevision(got, want) {
		return nil, fmt.Errorf("editing %s: the edited file does not hold the new pin (set the pin by hand)", fleet.ConfigPath)
	}
	p.Content, p.Changed = content, true
	changed := map[string]bool{} // type + "\x00" + target
	under := map[*fleet.Node]bool{}
	for _, t := range n.Leaves() {
		under[t] = true
	}
	for _, ct := range types {
		// The cluster type's targets, as render makes them, under n.
		for _, t := range ct.Targets {
			if !under[t] || (opts.ClusterType != "" && ct.Name != opts.ClusterType) {
				continue
			}
			from, to := revisionOf(f, ct.Name, t), revisionOf(after, ct.Name, after.Config.Find(t.Path()))
			if from != to {
				p.Changes = append(p.Changes, Change{ClusterType: ct.Name, Target: t.ID(), From: orHEAD(from), To: to})
				changed[ct.Name+"\x00"+t.ID()] = true
			}
		}
	}
	p.Gates = gates(n, p.Changes)
	for _, c := range f.ClustersUnder(n) {
		if changed[c.Type+"\x00"+c.Target.ID()] {
			p.Clusters = append(p.Clusters, c.Name)
		}
	}
	return p, nil
}

// Gate returns a *GateError when the plan changes targets behind manual
// gates and opts does not approve them.
func Gate(p *Plan, opts Options) error {
	if len(p.Gates) > 0 && !opts.Approve {
		return &GateError{Gates: p.Gates, Command: opts.Command}
	}
	return nil
}

// placed returns the cluster types that have targets at or under n; name,
// when given, must be one of them.
func placed(f *fleet.Fleet, n *fleet.Node, name string) ([]*fleet.ClusterType, error) {
	if name != "" {
		ct := f.ClusterType(name)
		if ct == nil {
			var names []string
			for _, d := range f.ClusterTypes {
				names = append(names, d.Name)
			}
			return nil, suggest.UnknownFlag("--cluster-type", "cluster type", name, names)
		}
		if !ct.ExistsAt(n) {
			return nil, suggest.Unknownf("cluster type %q is not placed at %s: it has no target there (config.yaml's at: places it at %s)", name, n.ID(), nodeList(ct.At))
		}
	}
	var out []*fleet.ClusterType
	for _, ct := range f.ClusterTypes {
		if ct.ExistsAt(n) {
			out = append(out, ct)
		}
	}
	if len(out) == 0 {
		return nil, suggest.Unknownf("no cluster type is placed at %s: it has no target (config.yaml's at:)", n.ID())
	}
	return out, nil
}

func nodeList(nodes []*fleet.Node) string {
	ids := make([]string, len(nodes))
	for i, n := range nodes {
		ids[i] = n.ID()
	}
	return strings.Join(ids, ", ")
}

func orHEAD(s string) string {
	if s == "" {
		return "HEAD"
	}
	return s
}

func unknownNode(f *fleet.Fleet, node string) error {
	var ids []string
	f.Config.Root.Walk(func(n *fleet.Node) { ids = append(ids, n.ID()) })
	return suggest.Unknown("node", node, ids)
}

// newRevision is the node's pin after the change; types are the cluster
// types placed at the node.
func newRevision(old *fleet.Revision, opts Options, types []*fleet.ClusterType) *fleet.Revision {
	if opts.ClusterType == "" {
		return &fleet.Revision{All: opts.Revision}
	}
	by := map[string]string{}
	switch {
	case old != nil && old.ByType != nil:
		maps.Copy(by, old.ByType)
	case old != nil && old.All != "":
		// A pin for every type becomes one per type: the others keep it.
		for _, ct := range types {
			by[ct.Name] = old.All
		}
	}
	by[opts.ClusterType] = opts.Revision
	return &fleet.Revision{ByType: by}
}

func sameRevision(a, b *fleet.Revision) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.All == b.All && maps.Equal(a.ByType, b.ByType) && (a.ByType == nil) == (b.ByType == nil)
}

// gates lists the manual nodes above or at the changed targets, outermost
// first, in rollout order.
func gates(n *fleet.Node, changes []Change) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range changes {
		var chain []string
		for p := n; p != nil && p.Depth > 0; p = p.Parent {
			if p.Gate == fleet.GateManual {
				chain = append([]string{p.ID()}, chain...)
			}
		}
		for _, id := range chain {
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
		// Manual nodes below n on the way to the target.
		for _, id := range belowGates(n, c.Target) {
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}

func belowGates(n *fleet.Node, target string) []string {
	var out []string
	rest := strings.TrimPrefix(strings.TrimPrefix(target, n.ID()), "/")
	cur := n
	for _, name := range strings.Split(rest, "/") {
		if name == "" {
			break
		}
		if cur = cur.Child(name); cur == nil {
			break
		}
		if cur.Gate == fleet.GateManual {
			out = append(out, cur.ID())
		}
	}
	return out
}

// Apply writes the plan's config.yaml under the repository root,
// atomically and never through a symbolic link (package atomicfile).
func Apply(root string, p *Plan) error {
	if !p.Changed {
		return nil
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	return atomicfile.WriteFile(r, p.File, p.Content)
}

// plainPinError refuses a pin of the whole tree in a fleet of plain
// manifests under strata's root ApplicationSets, which read such a pin
// from the target's values.yaml (fleet.Config.checkPlainPins).
func plainPinError(f *fleet.Fleet) error {
	var names []string
	for _, r := range f.Config.Revisions {
		names = append(names, r.Name)
	}
	way := "name a revision in config.yaml's revisions: and pin it with --name"
	if len(names) > 0 {
		way = "pin a named revision (--name " + strings.Join(names, ", --name ") + ")"
	}
	return fmt.Errorf("the targets hold plain manifests (layout.manifests, %s): strata's root ApplicationSet reads a pin of the whole tree from the target's values.yaml, which they do not have; %s, or set roots.kind: Application (a pin then reaches a cluster with strata bootstrap --apply)", f.Config.Layout.Pos, way)
}
