package promote

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/values"
)

// coalesce merges, depth by depth from the first dimension down, the copies
// under every node whose targets all have the patch into one copy at the
// node. Copies whose contents differ are not merged: each such node is a
// conflict, returned with the others (the nodes without one are coalesced,
// so that the caller can look for further conflicts).
func (pl *planner) coalesce(s state) ([]Coalesce, []error, error) {
	var out []Coalesce
	var conflicts []error
	var conflicted []string // nodes with a conflict: the ones below repeat it
	for depth := 1; depth < len(pl.f.Config.Dimensions); depth++ {
		for _, n := range pl.walk {
			if n.Depth != depth || s.covers(n) || !pl.allCovered(s, n) {
				continue
			}
			if slices.ContainsFunc(conflicted, func(id string) bool { return strings.HasPrefix(n.ID(), id+"/") }) {
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
			differ, err := pl.sameContent(s, ids, fmt.Sprintf("coalesce %s into %s", strings.TrimSuffix(pl.name, ".yaml"), n.ID()))
			if err != nil {
				return nil, nil, err
			}
			if len(differ) > 0 {
				conflicts = append(conflicts, differ...)
				conflicted = append(conflicted, n.ID())
				continue
			}
			data := s[ids[0]]
			for _, id := range ids[1:] {
				var err error
				if data, err = mergeApprovals(data, s[id]); err != nil {
					return nil, nil, fmt.Errorf("%s: %w", pl.fileOf(id), err)
				}
			}
			for _, id := range ids {
				delete(s, id)
			}
			s[n.ID()] = data
			out = append(out, Coalesce{Node: n.ID(), Into: pl.fileOf(n.ID()), From: from})
		}
	}
	return out, conflicts, nil
}

// foldConflicts is nil without conflicts, the conflict itself when there is
// one, and all of them, numbered, when there are several.
func foldConflicts(patch string, conflicts []error) error {
	switch len(conflicts) {
	case 0:
		return nil
	case 1:
		return conflicts[0]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "cannot promote %s: %d conflicts, all listed here:", patch, len(conflicts))
	for i, c := range conflicts {
		lines := strings.Split(c.Error(), "\n")
		fmt.Fprintf(&b, "\n  %d. %s", i+1, lines[0])
		for _, l := range lines[1:] {
			b.WriteString("\n     " + l)
		}
	}
	return errors.New(b.String())
}

func (pl *planner) allCovered(s state, n *fleet.Node) bool {
	for _, l := range n.Leaves() {
		if !s.covers(l) && pl.ct.ExistsAt(l) {
			return false
		}
	}
	return true
}

func (pl *planner) fileOf(id string) string { return pl.comp.Dir + "/" + id + "/" + pl.name }

// sameContent checks that the copies at ids hold the same values (their
// metadata aside): it returns a conflict naming the first copy and every
// copy that differs from it, or nil; what says what needs them to
// ("coalesce patch-001 into integration").
func (pl *planner) sameContent(s state, ids []string, what string) ([]error, error) {
	first, err := patchValue(pl.fileOf(ids[0]), s[ids[0]])
	if err != nil {
		return nil, err
	}
	var field []string
	files := []string{pl.fileOf(ids[0])}
	for _, id := range ids[1:] {
		v, err := patchValue(pl.fileOf(id), s[id])
		if err != nil {
			return nil, err
		}
		if !values.Equal(first, v) {
			if len(files) == 1 {
				field = firstDifference(first, v, nil)
			}
			files = append(files, pl.fileOf(id))
		}
	}
	if len(files) == 1 {
		return nil, nil
	}
	at := ""
	if len(field) > 0 {
		at = " (at " + values.PathString(field) + ")"
	}
	return []error{fmt.Errorf("cannot %s: its copies differ%s:\n    %s\nmake them identical (or give the different change its own patch name), then promote again",
		what, at, strings.Join(files, "\n    "))}, nil
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
		was := digest(pl.comp.Values.Data)
		if pl.comp.Chart != nil && pl.comp.Values.Data == nil {
			was = "" // a chart's component without values.yaml: the fold creates it
		}
		writes = append(writes, Op{Kind: "write", Path: pl.comp.Values.Path, Data: newValues, Was: was})
	}
	return append(writes, removes...)
}

// simulate returns the component as it would be with the patch at the nodes
// of s, and values.yaml replaced by newValues when not nil.
func (pl *planner) simulate(s state, newValues []byte) *fleet.Component {
	c := &fleet.Component{Name: pl.comp.Name, Dir: pl.comp.Dir, Values: pl.comp.Values, Metadata: pl.comp.Metadata, Chart: pl.comp.Chart,
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
// values of any target: restructuring must not change what runs. It returns
// every change, one conflict per field, value and winning file, with the
// targets it changes.
func (pl *planner) checkUnchanged(promoted, after state, newValues []byte) ([]error, error) {
	if newValues == nil && len(promoted) == len(after) && equalKeys(promoted, after) {
		return nil, nil
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
	what := "coalescing"
	if newValues != nil {
		what = "folding it into " + pl.comp.Values.Path
	}
	type key struct{ field, value, winner string }
	var order []key
	targets := map[key][]string{}
	for _, t := range pl.ct.Targets {
		if newValues == nil && !changed.covers(t) {
			continue
		}
		a, err := pl.ct.ComponentValues(was, t)
		if err != nil {
			return nil, err
		}
		b, err := pl.ct.ComponentValues(will, t)
		if err != nil {
			return nil, err
		}
		for _, field := range differences(a, b, nil) {
			k := key{values.PathString(field), describe(b.Lookup(field...)), pl.setter(will, t, field)}
			if _, seen := targets[k]; !seen {
				order = append(order, k)
			}
			targets[k] = append(targets[k], t.ID())
		}
	}
	var out []error
	for _, k := range order {
		msg := fmt.Sprintf("refusing to promote %s: %s would change %s at %s (%s)",
			strings.TrimSuffix(pl.name, ".yaml"), what, k.field, listTargets(targets[k]), k.value)
		if k.winner != "" {
			msg += fmt.Sprintf(":\n    %s sets the same field and would win over the patch; move the field into the patch (or out of that file) first", k.winner)
		}
		out = append(out, errors.New(msg))
	}
	return out, nil
}

// listTargets names up to three targets, and how many more.
func listTargets(ts []string) string {
	s := strings.Join(ts[:min(len(ts), 3)], ", ")
	if len(ts) > 3 {
		s += fmt.Sprintf(" and %d more targets", len(ts)-3)
	}
	return s
}

// differences returns the key paths of every difference between a and b:
// the leaves (or whole values, where one side is not a mapping) that differ.
func differences(a, b *values.Value, path []string) [][]string {
	if values.Equal(a, b) {
		return nil
	}
	if a == nil || b == nil || a.Kind != values.Map || b.Kind != values.Map {
		return [][]string{slices.Clone(path)}
	}
	keys := slices.Clone(a.Keys)
	for _, k := range b.Keys {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	var out [][]string
	for _, k := range keys {
		out = append(out, differences(a.Get(k), b.Get(k), append(path, k))...)
	}
	return out
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
