package promote

import (
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
)

// Wave is the wave of a step sized by config.yaml's rollout waves: (see
// fleet.Waves): the nodes at the promotion level under Group that the step
// enters at once, in rollout order.
type Wave struct {
	// Group is the node whose waves size the step (fleet.WaveGroup).
	Group string `json:"group"`
	// Number is the wave's place among the group's Of waves, from 1.
	Number int `json:"number"`
	Of     int `json:"of"`
	// Nodes are the nodes the step enters (the first is Plan.Target),
	// Files the patch's new copies there (none in WaveOf's answer).
	Nodes []string `json:"nodes,omitempty"`
	Files []string `json:"files,omitempty"`
	// Entered is how many of the group's Total nodes have the patch once
	// the wave is in.
	Entered int `json:"entered"`
	Total   int `json:"total"`
}

// wave returns the nodes a step that enters next enters: next alone when
// no waves apply to it, else its wave (see fleet.Waves.Ends): the group's
// nodes at the promotion level that the patch covers (s) are counted, and
// the step enters the uncovered ones from next on until the end of the
// first wave that count does not reach. A patch moved by hand into part of
// a wave is completed to the end of that wave. A wave that enters until
// does not go past it.
func (pl *planner) wave(s state, next *fleet.Node, until string) ([]*fleet.Node, *Wave) {
	g, ok := pl.f.Config.WavesAt(next)
	if !ok || next.Depth != pl.level {
		return []*fleet.Node{next}, nil
	}
	members := pl.members(g.Node)
	start := slices.Index(members, next)
	if start < 0 {
		return []*fleet.Node{next}, nil
	}
	covered := 0
	for _, n := range members {
		if s.covers(n) {
			covered++
		}
	}
	ends := g.Waves.Ends(len(members))
	k := slices.IndexFunc(ends, func(e int) bool { return e > covered })
	w := &Wave{Group: g.Node.ID(), Number: k + 1, Of: len(ends), Total: len(members)}
	var nodes []*fleet.Node
	for _, n := range members[start:] {
		if covered+len(nodes) == ends[k] || (len(nodes) > 0 && stopsAt(until, nodes[0], n)) {
			break
		}
		if !s.covers(n) {
			nodes = append(nodes, n)
			w.Nodes, w.Files = append(w.Nodes, n.ID()), append(w.Files, pl.file(n))
		}
	}
	w.Entered = covered + len(nodes)
	return nodes, w
}

// stopsAt reports whether a wave that began at first stops before n:
// first is at or under until, and n is not.
func stopsAt(until string, first, n *fleet.Node) bool {
	under := func(n *fleet.Node) bool { return n.ID() == until || strings.HasPrefix(n.ID(), until+"/") }
	return until != "" && under(first) && !under(n)
}

// WaveOf says which wave of its latest location's group a patch is in:
// the last wave it has entered, or the first when it is at none of the
// group's nodes yet; nil when no waves apply there (or the patch is not
// found). Package status shows it.
func WaveOf(f *fleet.Fleet, opts Options) (*Wave, error) {
	pl, err := newPlanner(f, opts)
	if err != nil {
		return nil, err
	}
	s, found := pl.find()
	if len(found) == 0 {
		return nil, nil
	}
	latest := found[len(found)-1]
	g, ok := pl.f.Config.WavesAt(latest)
	if !ok {
		return nil, nil
	}
	members := pl.members(g.Node)
	total, covered := len(members), 0
	for _, n := range members {
		if s.covers(n) {
			covered++
		}
	}
	ends := g.Waves.Ends(total)
	if len(ends) == 0 {
		return nil, nil
	}
	k := max(0, slices.IndexFunc(ends, func(e int) bool { return e >= covered }))
	return &Wave{Group: g.Node.ID(), Number: k + 1, Of: len(ends), Entered: covered, Total: total}, nil
}

// members are the nodes at the promotion level at or under group, in
// rollout order: those its waves enter.
func (pl *planner) members(group *fleet.Node) []*fleet.Node {
	var out []*fleet.Node
	for _, n := range pl.walk {
		if n.Depth == pl.level && (n == group || strings.HasPrefix(n.ID(), group.ID()+"/")) {
			out = append(out, n)
		}
	}
	return out
}
