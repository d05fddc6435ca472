package fleet

import (
	"fmt"
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/values"
)

// Conflict is two patches of one level directory that set the same field:
// the later one (in file-name order) wins, which is rarely what their
// authors meant. The reference generator warns about it; so does strata.
type Conflict struct {
	Patch    *File    // the later patch, whose values win
	Previous *File    // the earlier patch
	Paths    []string // the fields both set, dotted, sorted
}

func (c Conflict) String() string {
	return fmt.Sprintf("%s conflicts with %s: both set %s (the later patch wins)",
		c.Patch.Path, c.Previous.Path, strings.Join(c.Paths, ", "))
}

// Conflicts reports, for each patch of the level in file-name order, the
// earlier patches that set a field it sets too. A field is a leaf of the
// patch's content (metadata: excluded): a scalar, a list or null; an empty
// mapping changes nothing and sets no field.
func (l *Level) Conflicts() ([]Conflict, error) {
	if len(l.Patches) < 2 {
		return nil, nil
	}
	fields := make([]map[string]bool, len(l.Patches))
	var out []Conflict
	for i, p := range l.Patches {
		content, err := PatchContent(p)
		if err != nil {
			return nil, err
		}
		fields[i] = patchedFields(content)
		for j := range i {
			var both []string
			for f := range fields[i] {
				if fields[j][f] {
					both = append(both, f)
				}
			}
			if len(both) > 0 {
				slices.Sort(both)
				out = append(out, Conflict{Patch: p, Previous: l.Patches[j], Paths: both})
			}
		}
	}
	return out, nil
}

// patchedFields returns the dotted paths of the leaves of v.
func patchedFields(v *values.Value) map[string]bool {
	out := map[string]bool{}
	for _, leaf := range v.Leaves() {
		if leaf.Value.Kind == values.Map {
			continue // an empty mapping
		}
		out[values.PathString(leaf.Path)] = true
	}
	return out
}

// Conflicts lists the patch conflicts of every level directory of the
// fleet: cluster types in declaration order, components by name, levels in
// rollout order. Only levels with two patches or more are decoded.
func (f *Fleet) Conflicts() ([]Conflict, error) {
	var out []Conflict
	for _, ct := range f.ClusterTypes {
		for _, c := range ct.Components {
			if len(c.Levels) == 0 {
				continue
			}
			var err error
			f.Config.Root.Walk(func(n *Node) {
				l := c.Levels[n.ID()]
				if err != nil || l == nil {
					return
				}
				var cs []Conflict
				cs, err = l.Conflicts()
				out = append(out, cs...)
			})
			if err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}
