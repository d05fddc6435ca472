package rollout

import (
	"fmt"
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/promote"
)

// budget is a step's failure budget (rollout maxUnhealthy): how many of
// its clusters may fail without failing it. Those excused are not waited
// for, named in its events and the next commit's Strata-Unhealthy
// trailers; one more fails the step.
type budget struct {
	max fleet.Amount
	// excused are the clusters that failed within it, first failure each.
	excused map[string]Failure
	order   []string
}

func newBudget(limit fleet.Amount) *budget {
	return &budget{max: limit, excused: map[string]Failure{}}
}

// allowed is how many of the observed step's clusters may fail.
func (b *budget) allowed(o *observation) int {
	var clusters []string
	for _, a := range o.apps {
		if !slices.Contains(clusters, a.Cluster) {
			clusters = append(clusters, a.Cluster)
		}
	}
	return b.max.Allowed(len(clusters))
}

// excuse returns nil when the clusters failing now, with those excused
// before, fit the budget (and excuses them), else the failures that fail
// the step. A nil budget excuses nothing.
func (b *budget) excuse(o *observation, failures []Failure) []Failure {
	if b == nil || len(failures) == 0 {
		return failures
	}
	add := map[string]Failure{}
	var order []string
	for _, f := range failures {
		if f.Cluster == "" {
			return b.withExcused(failures) // a failure of no cluster (a timeout's own reason) is no cluster's
		}
		if b.has(f.Cluster) {
			continue
		}
		if _, ok := add[f.Cluster]; !ok {
			add[f.Cluster] = f
			order = append(order, f.Cluster)
		}
	}
	if len(b.excused)+len(add) > b.allowed(o) {
		return b.withExcused(failures)
	}
	for _, c := range order {
		b.excused[c] = add[c]
	}
	b.order = append(b.order, order...)
	return nil
}

// withExcused adds to failures those of the clusters excused before.
func (b *budget) withExcused(failures []Failure) []Failure {
	out := slices.Clone(failures)
	for _, c := range b.order {
		if !slices.ContainsFunc(failures, func(f Failure) bool { return f.Cluster == c }) {
			out = append(out, b.excused[c])
		}
	}
	return out
}

// has reports whether cluster c is excused (never by a nil budget).
func (b *budget) has(c string) bool {
	if b == nil {
		return false
	}
	_, ok := b.excused[c]
	return ok
}

// drop leaves out of failures those of excused clusters.
func (b *budget) drop(failures []Failure) []Failure {
	return slices.DeleteFunc(slices.Clone(failures), func(f Failure) bool { return b.has(f.Cluster) })
}

// healthy reports whether every object of o but the excused is healthy.
func (b *budget) healthy(o *observation) bool {
	return !slices.ContainsFunc(o.apps, func(a AppState) bool { return !a.Healthy() && !b.has(a.Cluster) })
}

// unhealthy are the excused clusters still not healthy in o.
func (b *budget) unhealthy(o *observation) []Failure {
	if b == nil {
		return nil
	}
	var out []Failure
	for _, c := range b.order {
		if slices.ContainsFunc(o.apps, func(a AppState) bool { return a.Cluster == c && !a.Healthy() }) {
			out = append(out, b.excused[c])
		}
	}
	return out
}

// UnhealthyTrailer names, on the next step's commit, a cluster a step left
// unhealthy within its budget.
const UnhealthyTrailer = "Strata-Unhealthy"

// unhealthyTrailers are "Strata-Unhealthy: cluster w2 (workload/
// integration/eu-west1) at <commit>: <reason>".
func unhealthyTrailers(step string, commit string, failures []Failure) []string {
	var out []string
	for _, f := range failures {
		reason, _, _ := strings.Cut(f.Reason, "\n")
		out = append(out, fmt.Sprintf("%s: cluster %s (%s) of the step to %s (%.12s): %s", UnhealthyTrailer, f.Cluster, f.Target, step, commit, reason))
	}
	return out
}

// stepBudget is the failure budget of policy p; nil when it allows none.
func stepBudget(p fleet.RolloutPolicy) *budget {
	if p.MaxUnhealthy.N == 0 {
		return nil
	}
	return newBudget(p.MaxUnhealthy)
}

// plannedWave adds to a KindPlanned event the wave of its plan and its
// failure budget.
func plannedWave(ev *Event, plan *promote.Plan, pol fleet.RolloutPolicy) {
	if w := plan.Wave; w != nil {
		ev.Nodes, ev.Wave = w.Nodes, fmt.Sprintf("%d of %d of %s", w.Number, w.Of, w.Group)
	}
	if pol.MaxUnhealthy.N > 0 {
		ev.MaxUnhealthy = pol.MaxUnhealthy.String()
	}
}
