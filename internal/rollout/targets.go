package rollout

import (
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/live"
)

// target is a target whose rendered output a step changed.
type target struct {
	ID string // <type>/<node>
	// Clusters are the inventory's clusters at the target.
	Clusters []string
}

// targetsOf are the targets of ids (<type>/<node>) with their clusters.
func targetsOf(f *fleet.Fleet, ids []string) []*target {
	var out []*target
	for _, id := range ids {
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

// pickClusters selects the objects of the clusters of f that in takes,
// keeping their names, not f (BENCHMARKS.md, delivery).
func pickClusters(f *fleet.Fleet, in func(c *fleet.Cluster) bool) func(live.AppState) bool {
	names := map[string]bool{}
	for _, c := range f.Clusters {
		if c.Target != nil && in(c) {
			names[c.Name] = true
		}
	}
	return func(s live.AppState) bool { return names[s.Cluster] }
}

func targetIDs(ts []*target) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}
