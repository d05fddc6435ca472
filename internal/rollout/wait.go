package rollout

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/rollout/livecache"
)

// DefaultRefreshEvery is how often the roots that have not deployed a
// step yet are asked again for a refresh (livecache/refresh.go).
const DefaultRefreshEvery = 20 * time.Second

// StepError is a step that failed: its Applications did not sync, became
// unhealthy, or a check failed. Reverted is the revert's commit (Healthy:
// its targets were healthy after it); Recorded, the failure of an earlier
// run, by strata's record.
type StepError struct {
	Step     string
	Commit   string
	Failures []Failure
	Reverted string
	Healthy  bool
	Recorded bool
}

func (e *StepError) Error() string {
	s := fmt.Sprintf("the step to %s failed", e.Step)
	if e.Commit != "" {
		s = fmt.Sprintf("the step to %s (%.12s) failed", e.Step, e.Commit)
	}
	for _, f := range e.Failures {
		switch {
		case f.Check != "":
			s += fmt.Sprintf("\n  check %s: %s", f.Check, f.Reason)
		case f.Alert != "":
			s += "\n  " + f.Reason
		case f.App != "" && f.ArgoCD == f.Cluster:
			s += fmt.Sprintf("\n  %s: Application %s on %s: %s", f.Target, f.App, f.ArgoCD, f.Reason)
		case f.App != "":
			s += fmt.Sprintf("\n  %s: Application %s of %s on the Argo CD of %s: %s", f.Target, f.App, f.Cluster, f.ArgoCD, f.Reason)
		case f.Target != "":
			s += fmt.Sprintf("\n  %s: %s", f.Target, f.Reason)
		default:
			s += "\n  " + f.Reason
		}
	}
	switch {
	case e.Reverted != "" && e.Healthy:
		s += fmt.Sprintf("\nreverted by %.12s; its targets are healthy again", e.Reverted)
	case e.Reverted != "":
		s += fmt.Sprintf("\nreverted by %.12s", e.Reverted)
	}
	return s
}

// waitHealthy waits until every object of ws is synced at its commit and
// healthy; it fails on a failed sync, an object degraded at its commit, or
// timeout after since. A --once run looks once (pendingError).
func (r *runner) waitHealthy(ctx context.Context, step string, ws *waitSet, since time.Time, timeout time.Duration) error {
	deadline := r.env.Clock.NewTimer(max(0, timeout-r.env.Clock.Since(since)))
	defer deadline.Stop()
	refresh := r.env.Clock.NewTicker(r.env.RefreshEvery)
	defer refresh.Stop()
	calls, cancel := context.WithTimeout(ctx, timeout) // no API call outlives it
	defer cancel()
	r.watch.Start(calls, ws.f)
	o := r.observe(ws)
	if len(o.apps) == 0 {
		// Nothing to wait on is no pass (see unwatched.go).
		return &StepError{Step: step, Commit: ws.commit, Failures: []Failure{{Reason: "nothing to wait on: the rendered output " +
			"the step changed holds no Application or ApplicationSet of a cluster of the inventory; if the node has nothing " +
			"to watch, declare it in config.yaml: rollout: {watch: false}"}}}
	}
	r.refresh(calls, step, o, ws)
	var last []AppState
	for {
		if f := o.failed; len(f) > 0 && !r.reverting {
			if f = r.budget.excuse(o, f); len(f) > 0 {
				return &StepError{Step: step, Commit: ws.commit, Failures: f}
			}
		} else if len(f) > 0 {
			r.terminate(ctx, f) // after a revert: a retry of the failed spec
		}
		if last == nil || !reflect.DeepEqual(last, o.apps) {
			last = append([]AppState{}, o.apps...)
			synced, healthy := o.counts()
			kind := KindWaiting
			if r.budget.healthy(o) {
				kind = KindHealthy
			}
			r.emit(Event{Kind: kind, Step: step, Commit: ws.commit, Apps: o.apps, Synced: synced, Healthy: healthy,
				Total: len(o.apps), Since: since, Deadline: since.Add(timeout), Unhealthy: r.budget.unhealthy(o)})
		}
		if r.budget.healthy(o) {
			return nil
		}
		if r.opts.Once {
			if r.env.Clock.Since(since) < timeout {
				synced, healthy := o.counts()
				return r.pending(step, ws.commit, fmt.Sprintf("waiting for the Applications to sync and become healthy: %d of %d synced, %d healthy, timeout at %s",
					synced, len(o.apps), healthy, since.Add(timeout).UTC().Format(time.RFC3339)))
			}
			return r.timedOut(step, ws.commit, o, since, timeout)
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-deadline.C():
			return r.timedOut(step, ws.commit, o, since, timeout)
		case <-refresh.C():
			r.refresh(calls, step, o, ws)
		case err := <-r.alarm:
			return err
		case <-r.watch.Changed():
		}
		o = r.observe(ws)
	}
}

// timedOut ends a wait past its timeout: a StepError, or nil when the
// budget excuses all that is not healthy.
func (r *runner) timedOut(step, commit string, o *observation, since time.Time, timeout time.Duration) error {
	f := r.budget.excuse(o, o.timeoutFailures())
	if len(f) == 0 {
		r.emitWithinBudget(step, commit, o, since, timeout)
		return nil
	}
	return &StepError{Step: step, Commit: commit, Failures: append([]Failure{{Reason: fmt.Sprintf(
		"timed out after %s waiting for the Applications to sync and become healthy", timeout)}}, f...)}
}

// soak watches the objects of ws for d: any of them failed, degraded,
// missing or out of sync ends it with an error.
func (r *runner) soak(ctx context.Context, step string, ws *waitSet, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	until := r.env.Clock.Now().Add(d)
	done := r.env.Clock.NewTimer(d)
	defer done.Stop()
	var last []AppState
	for {
		o := r.observe(ws)
		if f := r.budget.excuse(o, r.budget.drop(o.soakFailures())); len(f) > 0 {
			return &StepError{Step: step, Commit: ws.commit, Failures: f}
		}
		if last == nil || !reflect.DeepEqual(last, o.apps) {
			last = append([]AppState{}, o.apps...)
			synced, healthy := o.counts()
			r.emit(Event{Kind: KindSoaking, Step: step, Commit: ws.commit, Apps: o.apps, Synced: synced, Healthy: healthy,
				Total: len(o.apps), SoakUntil: until, Unhealthy: r.budget.unhealthy(o)})
		}
		if r.opts.Once {
			return r.pending(step, ws.commit, fmt.Sprintf("soaking until %s (%s left)", until.UTC().Format(time.RFC3339), d.Round(time.Second)))
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-done.C():
			r.emit(Event{Kind: KindSoaked, Step: step, Commit: ws.commit, Message: fmt.Sprintf("healthy for %s", d.Round(time.Second))})
			return nil
		case err := <-r.alarm:
			return err
		case <-r.watch.Changed():
		}
	}
}

// refresh asks a refresh of the roots behind (livecache/refresh.go), and
// reports each ask not taken for a while, once.
func (r *runner) refresh(ctx context.Context, step string, o *observation, ws *waitSet) {
	stalled := r.watch.AskRefresh(ctx, o.behind, ws.mark, r.env.Clock.Now(), r.env.RefreshEvery, r.opts.Once, r.log)
	for _, s := range stalled {
		if ws.stalled[s.Key] == s.Seq {
			continue
		}
		if ws.stalled == nil {
			ws.stalled = map[livecache.AppKey]uint64{}
		}
		ws.stalled[s.Key] = s.Seq
		r.emit(Event{Kind: KindStalled, Step: step, Commit: ws.commit, Message: fmt.Sprintf(
			"Argo CD has not taken the refresh of Application %s on %s asked %s ago (its %s annotation is still there): is its application controller running?",
			s.Key.Name, s.Key.ArgoCD, s.Age.Round(time.Second), livecache.RefreshAnnotation)})
	}
}

// observe reads the state of ws's objects.
func (r *runner) observe(ws *waitSet) *observation {
	rep := r.watch.Report(ws.scoped(r.opts.ClusterType, r.opts.Component), ws.history)
	var picked []live.AppState
	for _, cell := range rep.Cells {
		if cell.ClusterType != r.opts.ClusterType || cell.Component != r.opts.Component {
			continue
		}
		for _, st := range cell.Apps {
			if ws.pick(st) {
				picked = append(picked, st)
			}
		}
	}
	o := &observation{roots: map[string]live.Root{}}
	for _, st := range picked {
		o.apps = append(o.apps, appState(st))
	}
	for _, root := range rep.Roots {
		if slices.ContainsFunc(o.apps, func(a AppState) bool { return a.Cluster == root.Cluster }) {
			o.roots[root.Cluster] = root
		}
	}
	for i := range o.apps {
		o.apps[i].Revisions = o.roots[o.apps[i].Cluster].Revisions
	}
	known := true
	for _, st := range picked {
		known = o.judge(st, ws.history) && known
	}
	if !known {
		o.healthySince = time.Time{}
	}
	return o
}

// waitSet is the wait set of commit at HEAD (writer.ExpectAt), reading.
func (r *runner) waitSet(ctx context.Context, commit string, pick func(live.AppState) bool) (*waitSet, error) {
	var ws *waitSet
	err := r.reading(ctx, func() error {
		e, err := r.writer.ExpectAt(ctx, r)
		if err == nil {
			ws = &waitSet{commit: commit, f: e.Fleet, expected: e.Expected, history: e.History, pick: pick, mark: r.watch.Mark()}
		}
		return err
	})
	return ws, err
}

// terminate ends the operations Argo CD still runs of the failed
// Applications (asking again when a retry overwrote the request) and
// returns those it terminated.
func (r *runner) terminate(ctx context.Context, failures []Failure) []string {
	var out []string
	for _, f := range failures {
		if f.App == "" || !r.watch.Running(f.ArgoCD, f.App) {
			continue
		}
		out = append(out, f.App)
		deadline := r.env.Clock.NewTimer(time.Minute)
		for r.watch.Running(f.ArgoCD, f.App) {
			if _, err := r.watch.Terminate(ctx, f.ArgoCD, f.App); err != nil {
				r.log("terminating the operation of Application %s on %s: %v", f.App, f.ArgoCD, err)
			}
			select {
			case <-ctx.Done():
			case <-deadline.C():
			case <-r.watch.Changed():
				continue
			}
			break
		}
		deadline.Stop()
	}
	return out
}

// emitWithinBudget reports a wait that timed out within the budget.
func (r *runner) emitWithinBudget(step, commit string, o *observation, since time.Time, timeout time.Duration) {
	synced, healthy := o.counts()
	r.emit(Event{Kind: KindHealthy, Step: step, Commit: commit, Apps: o.apps, Synced: synced, Healthy: healthy,
		Total: len(o.apps), Since: since, Deadline: since.Add(timeout), Unhealthy: r.budget.unhealthy(o),
		Message: fmt.Sprintf("timed out after %s; the clusters not healthy are within maxUnhealthy %s", timeout, r.budget.max)})
}
