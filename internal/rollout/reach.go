package rollout

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/promote"
	"github.com/strata-fleet/strata/internal/render"
)

// UnreachableError is a rollout stopped before its first commit or push:
// an Argo CD it would wait on could not be read.
type UnreachableError struct {
	// Reasons are "<cluster>: <why>", one per Argo CD, by cluster.
	Reasons []string
}

func (e *UnreachableError) Error() string {
	return "cannot reach the Argo CD the rollout waits on, so nothing was committed or pushed:\n  " + strings.Join(e.Reasons, "\n  ")
}

// reach makes sure the rollout can see the Argo CDs a step will wait on
// before it commits or pushes the step: the first call reads every Argo CD
// of the fleet once (one list each, live.Read) and starts watching them;
// each call then checks those that run the Applications of a cluster of
// the rollout's cluster type under nodes (every node: nil), unless its
// node declares watch: false. One that could not be read stops the
// rollout (*UnreachableError), nothing of the step committed or pushed.
// A run that neither writes nor waits (a gate next) reads none.
func (r *runner) reach(ctx context.Context, nodes []string) error {
	rd, err := render.Load(r.fsys)
	if err != nil {
		return err
	}
	need := map[string]bool{}
	for _, c := range rd.Fleet.Clusters {
		if c.Type != r.opts.ClusterType || c.Target == nil || rd.Fleet.Config.RolloutAt(c.Target).NoWatch {
			continue
		}
		if nodes == nil || under(c.Target.ID(), nodes) {
			need[live.ArgoCDOf(c)] = true
		}
	}
	if !r.reached {
		r.reached = true
		limit := callTimeout
		if t := r.opts.Timeout; t != nil && *t < limit {
			limit = *t
		}
		calls, cancel := context.WithTimeout(ctx, limit)
		defer cancel()
		r.watch.start(calls, rd.Fleet)
	}
	var reasons []string
	for _, in := range r.watch.read() {
		if in.Error != "" && need[in.Cluster] {
			reasons = append(reasons, in.Cluster+": "+in.Error)
		}
	}
	if len(reasons) > 0 {
		slices.Sort(reasons)
		return &UnreachableError{Reasons: reasons}
	}
	return ctx.Err()
}

// planNodes are the nodes the step of plan changes targets under (nil:
// every node).
func planNodes(plan *promote.Plan) []string {
	if plan.Wave != nil && len(plan.Wave.Nodes) > 0 {
		return plan.Wave.Nodes
	}
	if plan.Target != "" {
		return []string{plan.Target}
	}
	if nodes, ok := plan.Reach(); ok {
		return nodes
	}
	return nil
}

// lost says, as an event, that the watch of the Argo CD on cluster ended
// with err: the step goes on waiting for it, until its timeout.
func (r *runner) lost(cluster string, err error) {
	r.emit(Event{Kind: KindLost, Message: fmt.Sprintf("the Argo CD on %s: %v; waiting for it until the step's timeout", cluster, err)})
}
