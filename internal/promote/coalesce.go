package promote

import (
	"fmt"
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/values"
)

// coalesce merges, depth by depth from the first dimension down, the copies
// under every node whose targets all have the patch into one copy at the
// node. Copies whose contents differ are not merged: that is an error.
func (pl *planner) coalesce(s state) ([]Coalesce, error) {
	var out []Coalesce
	for depth := 1; depth < len(pl.f.Config.Dimensions); depth++ {
		for _, n := range pl.walk {
			if n.Depth != depth || s.covers(n) || !allCovered(s, n) {
				continue
			}
			var from []string
			var ids []string
			for _, w := range pl.walk {
				if _, ok := s[w.ID()]; ok && strings.HasPrefix(w.ID(), n.ID()+"/") {
					ids = append(ids, w.ID())
					from = append(from, pl.fileOf(w.ID()))
				}
			}
			if err := pl.sameContent(s, ids, fmt.Sprintf("coalesce %s into %s", strings.TrimSuffix(pl.name, ".yaml"), n.ID())); err != nil {
				return nil, err
			}
			data := s[ids[0]]
			for _, id := range ids[1:] {
				var err error
				if data, err = mergeApprovals(data, s[id]); err != nil {
					return nil, fmt.Errorf("%s: %w", pl.fileOf(id), err)
				}
			}
			for _, id := range ids {
				delete(s, id)
			}
			s[n.ID()] = data
			out = append(out, Coalesce{Node: n.ID(), Into: pl.fileOf(n.ID()), From: from})
		}
	}
	return out, nil
}

func allCovered(s state, n *fleet.Node) bool {
	for _, l := range n.Leaves() {
		if !s.covers(l) {
			return false
		}
	}
	return true
}

func (pl *planner) fileOf(id string) string { return pl.comp.Dir + "/" + id + "/" + pl.name }

// sameContent checks that the copies at ids hold the same values (their
// metadata aside); what says what needs them to ("coalesce patch-001 into
// integration").
func (pl *planner) sameContent(s state, ids []string, what string) error {
	first, err := patchValue(pl.fileOf(ids[0]), s[ids[0]])
	if err != nil {
		return err
	}
	for _, id := range ids[1:] {
		v, err := patchValue(pl.fileOf(id), s[id])
		if err != nil {
			return err
		}
		if !values.Equal(first, v) {
			at := ""
			if field := firstDifference(first, v, nil); len(field) > 0 {
				at = " (at " + values.PathString(field) + ")"
			}
			return fmt.Errorf("cannot %s: its copies differ%s:\n    %s\n    %s\nmake them identical (or give the different change its own patch name), then promote again",
				what, at, pl.fileOf(ids[0]), pl.fileOf(id))
		}
	}
	return nil
}

func patchValue(path string, data []byte) (*values.Value, error) {
	return fleet.PatchContent(fleet.NewFile(path, data))
}

// firstDifference returns the key path of the first difference between a
// and b.
func firstDifference(a, b *values.Value, path []string) []string {
	if a == nil || b == nil || a.Kind != values.Map || b.Kind != values.Map {
		return path
	}
	keys := slices.Clone(a.Keys)
	for _, k := range b.Keys {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		if !values.Equal(a.Get(k), b.Get(k)) {
			return firstDifference(a.Get(k), b.Get(k), append(path, k))
		}
	}
	return path
}

// ops turns the change from before to after into file operations: writes
// (new copies, then values.yaml) before removals, each group in path order.
func (pl *planner) ops(before, after state, newValues []byte) []Op {
	var writes, removes []Op
	for _, n := range pl.walk {
		id := n.ID()
		a, inAfter := after[id]
		_, inBefore := before[id]
		switch {
		case inAfter && !inBefore:
			writes = append(writes, Op{Kind: "write", Path: pl.fileOf(id), Data: a})
		case inBefore && !inAfter:
			removes = append(removes, Op{Kind: "remove", Path: pl.fileOf(id), Was: digest(before[id])})
		}
	}
	if newValues != nil {
		writes = append(writes, Op{Kind: "write", Path: pl.comp.Values.Path, Data: newValues, Was: digest(pl.comp.Values.Data)})
	}
	return append(writes, removes...)
}

// simulate returns the component as it would be with the patch at the nodes
// of s, and values.yaml replaced by newValues when not nil.
func (pl *planner) simulate(s state, newValues []byte) *fleet.Component {
	c := &fleet.Component{Name: pl.comp.Name, Dir: pl.comp.Dir, Values: pl.comp.Values, Metadata: pl.comp.Metadata,
		Levels: map[string]*fleet.Level{}}
	if newValues != nil {
		c.Values = fleet.NewFile(pl.comp.Values.Path, newValues)
	}
	level := func(n *fleet.Node) *fleet.Level {
		if l := c.Levels[n.ID()]; l != nil {
			return l
		}
		l := &fleet.Level{Node: n, Dir: pl.comp.Dir + "/" + n.ID()}
		c.Levels[n.ID()] = l
		return l
	}
	for id, l := range pl.comp.Levels {
		nl := level(l.Node)
		nl.Override = l.Override
		for _, p := range l.Patches {
			if pathBase(p.Path) != pl.name {
				nl.Patches = append(nl.Patches, p)
			}
		}
		_ = id
	}
	for _, n := range pl.walk {
		if data, ok := s[n.ID()]; ok {
			l := level(n)
			l.Patches = append(l.Patches, fleet.NewFile(pl.fileOf(n.ID()), data))
			slices.SortFunc(l.Patches, func(a, b *fleet.File) int { return strings.Compare(a.Path, b.Path) })
		}
	}
	return c
}

// checkUnchanged refuses a coalescing or integration that would change the
// values of any target: restructuring must not change what runs.
func (pl *planner) checkUnchanged(promoted, after state, newValues []byte) error {
	if newValues == nil && len(promoted) == len(after) && equalKeys(promoted, after) {
		return nil
	}
	was, will := pl.simulate(promoted, nil), pl.simulate(after, newValues)
	// Only the targets under a node whose copy comes or goes can change,
	// unless values.yaml does.
	changed := state{}
	for id, data := range promoted {
		if _, ok := after[id]; !ok {
			changed[id] = data
		}
	}
	for id, data := range after {
		if _, ok := promoted[id]; !ok {
			changed[id] = data
		}
	}
	for _, t := range pl.f.Targets {
		if newValues == nil && !changed.covers(t) {
			continue
		}
		a, err := pl.ct.ComponentValues(was, t)
		if err != nil {
			return err
		}
		b, err := pl.ct.ComponentValues(will, t)
		if err != nil {
			return err
		}
		if values.Equal(a, b) {
			continue
		}
		field := firstDifference(a, b, nil)
		what := "coalescing"
		if newValues != nil {
			what = "folding it into " + pl.comp.Values.Path
		}
		msg := fmt.Sprintf("refusing to promote %s: %s would change %s at %s (%s)",
			strings.TrimSuffix(pl.name, ".yaml"), what, values.PathString(field), t.ID(), describe(b.Lookup(field...)))
		if winner := pl.setter(will, t, field); winner != "" {
			msg += fmt.Sprintf(":\n    %s sets the same field and would win over the patch; move the field into the patch (or out of that file) first", winner)
		}
		return fmt.Errorf("%s", msg)
	}
	return nil
}

func describe(v *values.Value) string {
	if v == nil {
		return "removed"
	}
	return "would become " + strings.TrimSpace(string(values.Encode(v)))
}

// setter returns the last file among c's layers for t, other than the
// patch, that sets field.
func (pl *planner) setter(c *fleet.Component, t *fleet.Node, field []string) string {
	winner := ""
	for _, l := range c.Layers(t) {
		for _, f := range l.Files() {
			if pathBase(f.Path) == pl.name {
				continue
			}
			v, err := f.Value()
			if err == nil && v.Lookup(field...) != nil {
				winner = f.Path
			}
		}
	}
	return winner
}

func equalKeys(a, b state) bool {
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return len(a) == len(b)
}
