package rollout

import (
	"fmt"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/promote"
	"github.com/strata-fleet/strata/internal/rollout/inflight"
	"github.com/strata-fleet/strata/internal/values"
)

// A step with nothing to wait on is no pass ("0/0 healthy" would let the
// patch go on unseen): the rollout stops before it changes anything,
// unless the node declares rollout: {watch: false}, checks alone.

// stepNode is the node a plan's step is reported under: where the patch
// moves, else (a fold) the last node it was found at.
func stepNode(plan *promote.Plan) string {
	if plan.Target == "" && len(plan.Found) > 0 {
		return plan.Found[len(plan.Found)-1]
	}
	return plan.Target
}

// watchablePlan is watchable for the targets plan's step changes: under
// the node it moves to, or for a fold those it can change (Plan.Reach).
func (r *runner) watchablePlan(f *fleet.Fleet, plan *promote.Plan) error {
	if plan.Target != "" {
		return r.watchable(f, plan.Target, []string{plan.Target})
	}
	nodes, ok := plan.Reach()
	if !ok {
		return nil // every target: the wait set says
	}
	return r.watchable(f, stepNode(plan), nodes)
}

// watchable returns an error at node's line in config.yaml when the step
// to node (targets under nodes; "": the whole cluster type) has no
// cluster to wait on and node does not declare watch: false.
func (r *runner) watchable(f *fleet.Fleet, node string, nodes []string) error {
	if len(nodes) == 0 || r.policyAt(f, node).NoWatch {
		return nil
	}
	for _, c := range f.Clusters {
		if c.Type == r.opts.ClusterType && c.Target != nil && (inflight.Under(c.Target.ID(), nodes) || nodes[0] == "") {
			return nil
		}
	}
	var pos values.Pos
	if n := f.Config.Find(strings.Split(node, "/")); n != nil {
		pos = n.Pos
	}
	return &values.Error{Pos: pos,
		Msg: fmt.Sprintf("the step to %s has nothing to wait on: no %s cluster of the inventory runs under %s; the rollout stopped before changing anything",
			node, r.opts.ClusterType, strings.Join(outermost(nodes), ", ")),
		Hint: "add the clusters to the inventory (config/clusters/), or declare that the node has nothing to watch: rollout: {watch: false}"}
}

// noWatch emits that the step is not waited for (watch: false).
func (r *runner) noWatch(st *step) {
	r.emit(Event{Kind: KindUnwatched, Step: st.node, Commit: st.commit, Targets: targetIDs(st.targets),
		Message: "nothing to watch (rollout: watch: false in config.yaml): not waited for, checks only"})
}

// outermost are the nodes of ids that are under no other of them.
func outermost(ids []string) []string {
	var out []string
	for i, id := range ids {
		if !inflight.Under(id, append(append([]string{}, ids[:i]...), ids[i+1:]...)) {
			out = append(out, id)
		}
	}
	return out
}
