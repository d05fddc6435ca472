package rollout

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/live"
)

// UnreachableError is a rollout stopped before its first commit or push:
// an Argo CD it would wait on could not be read.
type UnreachableError struct {
	// Reasons are "<cluster>: <why>", one per Argo CD, by cluster.
	Reasons []string
}

func (e *UnreachableError) Error() string {
	return "cannot reach the Argo CD the rollout waits on, so nothing was committed or pushed:\n  " + strings.Join(groupReasons(e.Reasons), "\n  ")
}

// groupReasons lists the clusters unreachable for one reason on one line.
func groupReasons(reasons []string) []string {
	type group struct {
		clusters []string
		reason   string
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, r := range reasons {
		cluster, why, ok := strings.Cut(r, ": ")
		if !ok {
			groups = append(groups, &group{reason: r})
			continue
		}
		key := strings.ReplaceAll(why, cluster, "\x00")
		g := byKey[key]
		if g == nil {
			g = &group{reason: why}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.clusters = append(g.clusters, cluster)
	}
	const show = 5
	out := make([]string, 0, len(groups))
	for _, g := range groups {
		switch n := len(g.clusters); {
		case n == 0:
			out = append(out, g.reason)
		case n <= show:
			out = append(out, strings.Join(g.clusters, ", ")+": "+g.reason)
		default:
			out = append(out, fmt.Sprintf("%s and %d more: %s", strings.Join(g.clusters[:show], ", "), n-show, g.reason))
		}
	}
	return out
}

// reach reads every Argo CD of the fleet once and starts watching them,
// before the first commit, push or wait: one the rollout would wait on
// that cannot be read stops it (*UnreachableError), nothing pushed.
func (r *runner) reach(ctx context.Context) error {
	if r.reached {
		return nil
	}
	r.reached = true
	f, err := r.load()
	if err != nil {
		return err
	}
	// The read is bounded by the longest step timeout, each page by the
	// cache's call timeout.
	need := map[string]bool{}
	var limit time.Duration
	for _, c := range f.Clusters {
		if c.Type != r.opts.ClusterType {
			continue
		}
		pol := f.Config.RolloutAt(c.Target)
		if c.Target == nil || !pol.NoWatch {
			need[live.ArgoCDOf(c)] = true
			limit = max(limit, pol.Timeout)
		}
	}
	if t := r.opts.Timeout; t != nil {
		limit = *t
	}
	if limit <= 0 {
		limit = fleet.DefaultRolloutTimeout
	}
	calls, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	r.watch.Start(calls, f)
	var reasons []string
	for _, in := range r.watch.Read() {
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

// lost says that the watch of the Argo CD on cluster ended with err.
func (r *runner) lost(cluster string, err error) {
	r.emit(Event{Kind: KindLost, Message: fmt.Sprintf("the Argo CD on %s: %v; waiting for it until the step's timeout", cluster, err)})
}
