package rollout

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/strata-fleet/strata/internal/record"
	"github.com/strata-fleet/strata/internal/rollout/inflight"
	"github.com/strata-fleet/strata/internal/rollout/writer"
)

// verify verifies st (verifyStep) and records that it passed; a failure
// is recorded by failed.
func (r *runner) verify(ctx context.Context, st *step) error {
	if err := r.verifyStep(ctx, st); err != nil {
		return err
	}
	return r.recordVerdict(ctx, st, record.KindPassed, nil)
}

// verifyStep waits for the step's Applications, soaks and runs the checks.
func (r *runner) verifyStep(ctx context.Context, st *step) error {
	if st.policy.NoWatch {
		r.noWatch(st)
		return r.runChecks(ctx, st)
	}
	if len(st.targets) == 0 && !st.settle {
		r.emit(Event{Kind: KindHealthy, Step: st.node, Commit: st.commit, Message: "no target's rendered output changed: nothing to wait for"})
		return nil
	}
	ws := st.ws
	if ws == nil {
		var err error
		if ws, err = r.waitSet(ctx, st.commit, st.pick); err != nil {
			return err
		}
	}
	r.budget = stepBudget(st.policy)
	defer func() { r.budget = nil }()
	g := r.guard(ctx, st)
	defer g.stop()
	since, err := r.waitStart(ctx, st)
	if err != nil {
		return err
	}
	err = r.waitHealthy(ctx, st.node, ws, since, st.policy.Timeout)
	if err == nil {
		if st.settle || r.opts.Once {
			st.soak = r.remainingSoak(ws, st.policy.Soak, since)
		}
		err = r.soak(ctx, st.node, ws, st.soak)
	}
	var p *pendingError
	if errors.As(err, &p) { // --once ends here; a stopWhen that holds fails it
		if gerr := g.last(ctx, false); gerr != nil {
			return gerr
		}
	}
	if err != nil {
		return err
	}
	if err := g.last(ctx, true); err != nil {
		return err
	}
	if err := r.runChecks(ctx, st); err != nil {
		return err
	}
	r.keepUnhealthy(st, ws)
	return nil
}

// remainingSoak is what remains of soak for objects healthy before this
// run saw them: soak less the time since they became healthy as Argo CD
// says; where it does not, the whole soak, but for a --once run, which
// counts from start (the step's commit) at the earliest.
func (r *runner) remainingSoak(ws *waitSet, soak time.Duration, start time.Time) time.Duration {
	since := r.observe(ws).healthySince
	if r.opts.Once && start.After(since) {
		since = start
	}
	if since.IsZero() {
		return soak
	}
	return max(0, soak-max(0, r.env.Clock.Since(since)))
}

func (r *runner) runChecks(ctx context.Context, st *step) error {
	env := CheckEnv{ClusterType: r.opts.ClusterType, Component: r.opts.Component, Patch: r.opts.Patch,
		Step: st.node, Commit: st.commit, Targets: targetIDs(st.targets)}
	for _, t := range st.targets {
		env.Clusters = append(env.Clusters, t.Clusters...)
	}
	done := r.reusable(ctx, st)
	for _, c := range st.policy.Checks {
		def := checkDefinition(c)
		if e, ok := done[c.Name+"\x00"+def]; ok {
			st.checks = append(st.checks, record.Check{Name: c.Name, Definition: def, Passed: true, Reason: "recorded " + e.ID()})
			r.emit(Event{Kind: KindCheck, Step: st.node, Commit: st.commit, Check: c.Name, Passed: true, Recorded: true,
				Message: fmt.Sprintf("passed for this patch and step commit at %s (recorded in %s, %.12s); not run again",
					e.At.UTC().Format(time.RFC3339), record.Ref, e.ID())})
			continue
		}
		err := r.readCheck(ctx, st, c, env)
		var uerr *UnreadableError
		if errors.As(err, &uerr) {
			return err
		}
		ev := Event{Kind: KindCheck, Step: st.node, Commit: st.commit, Check: c.Name, Passed: err == nil, Message: "passed"}
		if err != nil {
			ev.Message = err.Error()
		}
		r.emit(ev)
		if err != nil {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			st.checks = append(st.checks, record.Check{Name: c.Name, Definition: def, Reason: lastLines(err.Error(), 3)})
			return &StepError{Step: st.node, Commit: st.commit, Failures: []Failure{{Check: c.Name, Reason: err.Error()}}}
		}
		st.checks = append(st.checks, record.Check{Name: c.Name, Definition: def, Passed: true})
	}
	return nil
}

// failed ends the rollout on err, recorded; with Revert, the step (never
// itself a revert) is reverted, recorded and its targets waited for.
func (r *runner) failed(ctx context.Context, st *step, err error) error {
	var se *StepError
	if !errors.As(err, &se) {
		return err
	}
	if st.own != "" {
		se.Commit = st.own
	}
	r.emit(Event{Kind: KindFailed, Step: st.node, Commit: st.commit, Failures: se.Failures, Message: "the step failed"})
	if err := r.recordVerdict(ctx, st, record.KindFailed, se.Failures); err != nil {
		return errors.Join(se, err)
	}
	if !r.opts.Revert || st.revert == "" {
		return se
	}
	if isRevert, err := r.isRevert(ctx, st.revert); err != nil || isRevert {
		if err == nil {
			r.emit(Event{Kind: KindFailed, Step: st.node, Commit: st.revert,
				Message: fmt.Sprintf("not reverted: %.12s, the patch's last change, is itself a revert", st.revert)})
		}
		return errors.Join(se, err)
	}
	terminated := r.terminate(ctx, se.Failures)
	rv, gerr := r.revertStep(ctx, st, se.Failures)
	if gerr != nil {
		return errors.Join(se, gerr)
	}
	commit := rv.commit
	se.Reverted = commit
	if !rv.recorded {
		if err := r.recordRevert(ctx, st, commit, se.Failures); err != nil {
			return errors.Join(se, err)
		}
	}
	msg := fmt.Sprintf("reverted %.12s; waiting for its targets to be healthy again", st.revert)
	switch {
	case rv.theirs:
		msg = fmt.Sprintf("the remote moved (now %.12s) and already has the revert %.12s of %.12s: not reverted twice", rv.upstream, commit, st.revert)
	case r.opts.Once:
		msg = fmt.Sprintf("reverted %.12s and pushed the revert; its targets are not waited for (--once)", st.revert)
	case st.policy.NoWatch:
		msg = fmt.Sprintf("reverted %.12s and pushed the revert; nothing to watch (rollout: watch: false in config.yaml)", st.revert)
	}
	if len(terminated) > 0 {
		msg = fmt.Sprintf("terminated the failing syncs of %s; ", strings.Join(terminated, ", ")) + msg
	}
	r.emit(Event{Kind: KindReverted, Step: st.node, Commit: commit, Targets: targetIDs(st.targets), Message: msg})
	if r.opts.Once || st.policy.NoWatch {
		return se // the next run finds the revert in the record (stopped)
	}
	ws, werr := r.waitSet(ctx, commit, writer.ChangedIn(commit))
	if werr == nil {
		r.reverting = true
		werr = r.waitHealthy(ctx, st.node, ws, r.env.Clock.Now(), st.policy.Timeout)
		r.reverting = false
	}
	if werr != nil {
		return errors.Join(se, fmt.Errorf("after the revert %.12s: %w", commit, werr))
	}
	se.Healthy = true
	return se
}

// isRevert reports whether commit reverts another (git revert's message),
// only ever to keep strata from reverting it.
func (r *runner) isRevert(ctx context.Context, commit string) (bool, error) {
	body, err := r.repo.Git.Out(ctx, "log", "-1", "--format=%B", commit)
	if err != nil {
		return false, err
	}
	_, ok := inflight.RevertOf(body)
	return ok, nil
}

// keepUnhealthy records, once st passed, the clusters it left unhealthy
// within its budget, for the next step's commit, and says so.
func (r *runner) keepUnhealthy(st *step, ws *waitSet) {
	left := r.budget.unhealthy(r.observe(ws))
	if len(left) == 0 {
		return
	}
	r.unhealthy = append(r.unhealthy, unhealthyTrailers(st.node, st.commit, left)...)
	var names []string
	for _, f := range left {
		names = append(names, f.Cluster)
	}
	r.emit(Event{Kind: KindUnhealthy, Step: st.node, Commit: st.commit, Unhealthy: left,
		Message: fmt.Sprintf("the step passed with %s unhealthy, within maxUnhealthy %s; the rollout goes on", strings.Join(names, ", "), r.budget.max)})
}
