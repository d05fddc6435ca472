package rollout

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/promote"
	"github.com/strata-fleet/strata/internal/record"
	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/rollout/inflight"
	"github.com/strata-fleet/strata/internal/rollout/writer"
)

// step is one step of the rollout: a commit whose targets it waits for.
type step struct {
	// node is where the patch moved (or, for the wait on where it already
	// is, its latest location).
	node   string
	commit string
	// targets are those whose rendered output the step changed (for a
	// settle, those under the patch's locations).
	targets []*target
	// pick selects the objects to wait for (see waitSet).
	pick   func(live.AppState) bool
	settle bool
	policy fleet.RolloutPolicy
	// soak is how long to soak (less than the policy's when resuming).
	soak time.Duration
	// revert is the commit --on-failure revert reverts ("" for none).
	revert string
	// ws, when set, is the step's wait set, read when it was pushed
	// (the writer reads one for all the steps of a push).
	ws *waitSet
	// plan, c and made, for a step the rollout makes: its plan (nil for
	// the first copy's), how it is committed (for a replay) and what the
	// writer knows of it.
	plan *promote.Plan
	c    action.Commit
	made *writer.Step
	// tree is the rendered output of targets at commit, by content
	// (record.TreeOf); checks the checks run for it (the record's).
	tree   string
	checks []record.Check
	// own, for a settle, is the patch's own last commit, which its
	// failure names (commit is the last over its targets' output).
	own string
}

// action is the promotion step of the work tree (package action).
func (r *runner) action() *action.Step {
	return &action.Step{Dir: r.env.Dir, FS: r.fsys, Ops: r.ops, Retry: "run the rollout again"}
}

// commitStep makes the step of plan that catchUp completes (nil: the
// patch's first copy, every target; applied: a promotion resumed from its
// journal) and pushes it by the writer's one push loop (PushOne), under
// the repository lock catchUp holds.
func (r *runner) commitStep(ctx context.Context, plan *promote.Plan, applied bool) error {
	base, err := r.repo.Head(ctx)
	if err != nil {
		return err
	}
	st, err := r.makeStep(ctx, plan, r.repo.Git, applied)
	if err != nil {
		return err
	}
	return r.writer.PushOne(ctx, r, st.made, base)
}

// Make plans the next step on the work tree and makes it (writer.Rollout).
func (r *runner) Make(ctx context.Context, dirty []string, g git.Repo) (*writer.Step, error) {
	plan, err := r.ready(ctx, dirty)
	if err != nil || plan == nil {
		return nil, err
	}
	st, err := r.makeStep(ctx, plan, g, false)
	if err != nil {
		return nil, err
	}
	return st.made, nil
}

// makeStep makes the step of plan with action.Step.Run (apply unless
// applied, render what it can change, commit with g), unpushed: the step
// the writer makes (r.making).
func (r *runner) makeStep(ctx context.Context, plan *promote.Plan, g git.Repo, applied bool) (*step, error) {
	f, err := r.load()
	if err != nil {
		return nil, err
	}
	act := r.action()
	act.Applied = applied
	c := action.Commit{Git: g, Paths: []string{"config", render.OutputDir}, Planned: true,
		Trailers: append([]string{fmt.Sprintf("Strata-Rollout: %s/%s/%s", r.opts.ClusterType, r.opts.Component, r.opts.Patch)}, r.unhealthy...)}
	if len(r.hide) > 0 { // other patches' first copies, left out (writer/firstcopies.go)
		act.FS, act.Stateless = writer.HidingFS{FS: r.fsys, Hide: r.hide}, true
		for _, p := range r.hide {
			c.Paths = append(c.Paths, ":(exclude)"+p)
		}
	}
	st := &step{plan: plan}
	if plan != nil {
		st.node = plan.Target
		if st.node == "" {
			st.node = plan.Found[len(plan.Found)-1]
		}
		r.enterWave(plan)
	} else {
		locs := r.locations(f)
		st.node = locs[len(locs)-1]
		c.ClusterType, c.Component = r.opts.ClusterType, r.opts.Component
		c.Subject = fmt.Sprintf("Start %s of %s/%s at %s", r.opts.Patch, r.opts.ClusterType, r.opts.Component, strings.Join(locs, ", "))
		if c.Meta, err = r.patchMeta(st.node); err != nil {
			return nil, err
		}
	}
	st.policy = r.policyAt(f, st.node)
	st.soak = st.policy.Soak
	if err := r.checkRendered(plan, applied); err != nil {
		return nil, err
	}
	_, done, err := act.Run(ctx, plan, c)
	if err != nil {
		return nil, err
	}
	st.commit, st.targets, st.c = done.Commit, targetsOf(f, done.Changed), c
	if plan != nil && plan.Integrated != "" && len(done.Changed) > 0 {
		st.policy = r.foldPolicy(f, done.Changed)
		st.soak = st.policy.Soak
	}
	st.made = &writer.Step{Commit: st.commit}
	st.made.Subject, _, _ = strings.Cut(done.Message, "\n")
	if cfg, err := r.configNow(); err == nil && plan != nil {
		st.made.Dirs = plan.RenderedDirs(cfg)
	}
	r.making = st
	return st, nil
}

// checkRendered refuses the step of plan (nil: the patch's first copy)
// when rendered/ does not follow config/ before it: the step's render
// would deliver what is unrendered (another patch's change committed
// without strata render) under this patch's commit and message. A
// promotion resumed from its journal (applied) has changed config/
// already, and a first copy whose output the user rendered (rendered/
// uncommitted) cannot be told from the rest: neither is checked.
func (r *runner) checkRendered(plan *promote.Plan, applied bool) error {
	if applied || (plan == nil && (len(r.ownFirst) == 0 || r.renderedDirty)) {
		return nil
	}
	act := r.action()
	hide := r.hide
	if plan == nil {
		hide = append(slices.Clone(r.hide), r.ownFirst...)
	}
	if len(hide) > 0 {
		act.FS, act.Stateless = writer.HidingFS{FS: r.fsys, Hide: hide}, true
	}
	ts, err := act.Unrendered(plan)
	if err != nil || len(ts) == 0 {
		return err
	}
	return &action.UnrenderedError{Patch: r.opts.ClusterType + "/" + r.opts.Component + "/" + r.opts.Patch, Targets: ts}
}

// Remake makes the step again on upstream (writer.Rollout; remake).
func (r *runner) Remake(ctx context.Context, made *writer.Step, base, upstream string) error {
	subject, _, err := r.remake(ctx, r.making, base, upstream)
	if err == nil {
		made.Commit, made.Subject = r.making.commit, subject
	}
	return err
}

// Entry is the record of the step made, pushed (writer.Rollout).
func (r *runner) Entry(ctx context.Context, _ *writer.Step) (record.Entry, error) {
	return r.stepEntry(ctx, r.making, record.KindStep)
}

// Repo is where the rollout commits and pushes (writer.Rollout).
func (r *runner) Repo() *writer.Repo { return r.repo }

// FS is the work tree (writer.Rollout).
func (r *runner) FS() fs.FS { return r.fsys }

// Pushed records that the step made is pushed, and says so
// (writer.Rollout).
func (r *runner) Pushed(made *writer.Step) {
	st := r.making
	if e := made.Expect; e != nil {
		st.ws = &waitSet{commit: st.commit, f: e.Fleet, expected: e.Expected, history: e.History, pick: made.Pick, mark: made.Mark}
	}
	r.unhealthy = nil
	st.revert, st.pick = st.commit, writer.ChangedIn(st.commit)
	r.res.Steps = append(r.res.Steps, st.commit)
	r.emit(Event{Kind: KindPromoted, Step: st.node, Commit: st.commit, Message: made.Subject, Targets: targetIDs(st.targets)})
}

// patchMeta is the metadata of the patch's copy at node.
func (r *runner) patchMeta(node string) (*promote.PatchMeta, error) {
	p := path.Join("config", r.opts.ClusterType, r.opts.Component, node, strings.TrimSuffix(r.opts.Patch, ".yaml")+".yaml")
	data, err := fs.ReadFile(r.fsys, p)
	if err != nil {
		return nil, err
	}
	return promote.ReadMeta(p, data)
}

func targetIDs(ts []*target) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}

// waitSet is newWaitSet read under the repository lock, or under RunAll
// beside its writer (reading: another rollout of this process or
// checkout may be writing config/ and rendered/), its history fetching
// the revisions it lacks (fetch).
func (r *runner) waitSet(ctx context.Context, commit string, pick func(live.AppState) bool) (*waitSet, error) {
	var ws *waitSet
	err := r.reading(ctx, func() error {
		var err error
		ws, err = r.newWaitSet(ctx, commit, pick)
		return err
	})
	return ws, err
}

// policyAt is the rollout policy at node, with the run's overrides.
func (r *runner) policyAt(f *fleet.Fleet, node string) fleet.RolloutPolicy {
	var n *fleet.Node
	if node != "" {
		n = f.Config.Find(strings.Split(node, "/"))
	}
	// The run's --soak and --timeout, and a runner's own stopWhen
	// conditions and checks (--rollout-config).
	return r.opts.Runner.Add(inflight.Override(f.Config.RolloutAt(n), r.opts.Soak, r.opts.Timeout))
}

// foldPolicy is the policy of a fold, which changes the targets ids
// (<cluster type>/<node>) under nodes that may have policies of their
// own: the strictest of theirs (fleet.Strictest), the run's overrides
// applied. The fold's own run and the runs that settle it after (gone)
// read the same ids from its commit, so they judge it alike.
func (r *runner) foldPolicy(f *fleet.Fleet, ids []string) fleet.RolloutPolicy {
	if len(ids) == 0 {
		return r.policyAt(f, "")
	}
	nodes := make([]string, len(ids))
	for i, id := range ids {
		nodes[i] = strings.TrimPrefix(id, r.opts.ClusterType+"/")
	}
	return inflight.Override(f.Config.StrictestAt(nodes...), r.opts.Soak, r.opts.Timeout)
}

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
	if errors.As(err, &p) {
		// A --once run ends here: a stopWhen condition that holds now
		// fails the step all the same.
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

// remainingSoak is what remains of soak for objects that were healthy
// before this run saw them (a resumed rollout): soak less the time since
// they became synced and healthy, as Argo CD says (healthySince), so that
// neither the time Argo CD took to sync nor a stale record counts. Where
// Argo CD does not say, the whole soak, but for a --once run, which has
// no later moment to start it from: then since its step's commit (start).
// A --once run never counts from before start.
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

// failed ends the rollout on err, recorded; with Revert, a failed step is
// reverted first (never a revert: no revert of a revert), the revert
// recorded, and its targets waited for until they are healthy again.
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
		// No revert of a revert: it would put back what was undone.
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
		// The revert's targets are not waited for: the next run finds the
		// revert in the record and stays stopped (stopped).
		return se
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

// terminate ends the operations of the failed Applications that Argo CD
// still runs (retrying the failed spec), and waits until they have ended,
// asking again when the application controller wrote its retry over the
// request; it returns the Applications whose operation it terminated.
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

// failedTrailers are the --trailer arguments of a revert: one
// Strata-Failed trailer per failure, its reason on one line.
func failedTrailers(node string, failures []Failure) []string {
	var out []string
	for _, l := range failureLines(node, failures) {
		out = append(out, "--trailer", inflight.FailedTrailer+": "+l)
	}
	return out
}

// isRevert reports whether commit reverts another (git revert's message).
// It only ever keeps strata from reverting it: a message is never taken
// for strata's revert of a failed step (the record says that).
func (r *runner) isRevert(ctx context.Context, commit string) (bool, error) {
	body, err := r.repo.Run(ctx, "log", "-1", "--format=%B", commit)
	if err != nil {
		return false, err
	}
	_, ok := inflight.RevertOf(body)
	return ok, nil
}
