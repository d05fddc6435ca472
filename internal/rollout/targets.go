package rollout

import (
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/output"
)

// target is a target whose rendered output a step changed.
type target struct {
	ID string // <type>/<node>
	// Clusters are the inventory's clusters at the target.
	Clusters []string
}

// changedTargets are the targets under which plan changes files.
func changedTargets(f *fleet.Fleet, plan *output.Plan) []*target {
	var out []*target
	for _, id := range plan.Targets(len(f.Config.Dimensions)) {
		t := &target{ID: id}
		ct, node, _ := strings.Cut(id, "/")
		for _, c := range f.Clusters {
			if c.Type == ct && c.Target != nil && c.Target.ID() == node {
				t.Clusters = append(t.Clusters, c.Name)
			}
		}
		out = append(out, t)
	}
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
