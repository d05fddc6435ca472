package rollout

import (
	"slices"
	"sort"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/output"
	"github.com/strata-fleet/strata/internal/render"
)

// target is a target whose rendered output a step changed.
type target struct {
	ID string // <type>/<node>
	// Clusters are the inventory's clusters at the target.
	Clusters []string
}

// targetOf returns the target ID (<type>/<node>) of a path under rendered/,
// or "".
func targetOf(f *fleet.Fleet, p string) string {
	rest, ok := strings.CutPrefix(p, render.OutputDir+"/")
	if !ok {
		return ""
	}
	parts := strings.Split(rest, "/")
	depth := len(f.Config.Dimensions)
	if len(parts) < depth+2 {
		return ""
	}
	return strings.Join(parts[:depth+1], "/")
}

// changedTargets are the targets under which plan changes files.
func changedTargets(f *fleet.Fleet, plan *output.Plan) []*target {
	var out []*target
	for _, c := range plan.Changes {
		id := targetOf(f, c.Path)
		if id == "" || slices.ContainsFunc(out, func(t *target) bool { return t.ID == id }) {
			continue
		}
		t := &target{ID: id}
		ct, node, _ := strings.Cut(id, "/")
		for _, c := range f.Clusters {
			if c.Type == ct && c.Target != nil && c.Target.ID() == node {
				t.Clusters = append(t.Clusters, c.Name)
			}
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// under reports whether node id is one of nodes or under one of them.
func under(id string, nodes []string) bool {
	for _, n := range nodes {
		if id == n || strings.HasPrefix(id, n+"/") {
			return true
		}
	}
	return false
}
