package rollout

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"k8s.io/utils/clock"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/promote"
	"github.com/strata-fleet/strata/internal/rollout/inflight"
	"github.com/strata-fleet/strata/internal/rollout/writer"
)

// Run rolls the patch out: it completes what an earlier run left, waits
// for where the patch is, then steps it on (committed, pushed, waited
// for, soaked, checked) until it is folded, a manual gate not approved,
// opts.Until, or a failure (*StepError).
func Run(ctx context.Context, env Env, opts Options) (*Result, error) {
	return run(ctx, env, opts, nil)
}

// run is Run, sharing sh with the other rollouts of RunAll (nil: none).
func run(ctx context.Context, env Env, opts Options, sh *shared) (*Result, error) {
	if env.Clock == nil {
		env.Clock = clock.RealClock{}
	}
	if env.Log == nil {
		env.Log = slog.New(slog.DiscardHandler)
	}
	if env.HoldEvery <= 0 {
		env.HoldEvery = DefaultHoldEvery
	}
	if env.RefreshEvery <= 0 {
		env.RefreshEvery = DefaultRefreshEvery
	}
	ar, err := action.Open(env.Dir)
	if err != nil {
		return nil, err
	}
	defer ar.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ops, err := promote.NewDirOps(env.Dir)
	if err != nil {
		return nil, err
	}
	if sh == nil { // a rollout of its own: a batch of one
		sh = newShared(ctx, env, false)
	}
	r := &runner{env: env, opts: opts, repo: &writer.Repo{Git: git.Repo{Git: env.Git}, Dir: env.Dir}, fsys: ar.FS, ops: ops, res: &Result{Steps: []string{}},
		writer: sh.writer, loads: sh.loads}
	r.watch = sh.cache.Open(r.lost, countReactions)
	defer r.watch.Close()
	err = r.run(ctx)
	var p *pendingError
	if errors.As(err, &p) {
		r.res.Stopped, r.res.Step, r.res.Waiting = StoppedPending, p.step, p.waiting
		r.emit(Event{Kind: KindPending, Step: p.step, Commit: p.commit, Message: "in progress: " + p.waiting})
		return r.res, nil
	}
	var se *StepError
	if err != nil && !errors.As(err, &se) && ctx.Err() == nil {
		r.emit(Event{Kind: KindError, Message: err.Error()})
	}
	return r.res, err
}

func (r *runner) run(ctx context.Context) error {
	f, err := r.load()
	if err != nil {
		return err
	}
	if err := r.checkOptions(f); err != nil {
		return err
	}
	if r.opts.DryRun {
		return r.dryRun(ctx, f)
	}
	if ended, err := r.resume(ctx, f); ended || err != nil {
		return err
	}
	for {
		if ended, err := r.nextStep(ctx); ended || err != nil {
			return err
		}
	}
}

// resume checks the rollout can go on, completes what an earlier run left
// (catchUp) and settles where the patch is (or gone: then ended).
func (r *runner) resume(ctx context.Context, f *fleet.Fleet) (ended bool, err error) {
	if err := r.repo.PushTarget(ctx, r.opts.Remote); err != nil {
		return false, err
	}
	if locs := r.locations(f); len(locs) > 0 {
		if err := r.watchable(f, locs[len(locs)-1], locs); err != nil {
			return false, err
		}
	}
	if err := r.checkGap(f); err != nil {
		return false, err
	}
	head, _ := r.repo.Git.Head(ctx)
	if err := r.catchUpLocked(ctx); err != nil {
		return false, err
	}
	if now, _ := r.repo.Git.Head(ctx); now != head { // another run may have moved it
		var err error
		if f, err = r.load(); err != nil {
			return false, err
		}
	}
	if len(r.locations(f)) == 0 { // its last step removed its files
		if ok, err := r.gone(ctx); ok || err != nil {
			return true, err
		}
	}
	return false, r.settle(ctx)
}

// nextStep takes the next step: planned, held (without the lock, then
// planned again under it), made and pushed by the writer, verified.
func (r *runner) nextStep(ctx context.Context) (ended bool, err error) {
	var plan *promote.Plan
	var f *fleet.Fleet
	err = r.reading(ctx, func() error {
		var err error
		if f, err = r.load(); err != nil {
			return err
		}
		if len(r.locations(f)) == 0 {
			return errMoved // another run's step removed its files
		}
		plan, err = r.next(f)
		return err
	})
	if errors.Is(err, errMoved) {
		return r.resettle(ctx)
	}
	if err != nil || plan == nil {
		return true, err
	}
	if err := r.hold(ctx, f, plan.Target); err != nil {
		return true, err
	}
	made, err := r.writer.Step(ctx, r)
	if errors.Is(err, errMoved) {
		return r.resettle(ctx)
	}
	if err != nil || made == nil {
		return true, err
	}
	st := r.making
	if err := r.verify(ctx, st); err != nil {
		return true, r.failed(ctx, st, err)
	}
	r.passedAt(ctx, st.commit)
	if plan := st.plan; plan.Integrated != "" {
		r.done(StoppedDone, "", r.opts.Patch+" is rolled out and folded into "+plan.Integrated, "")
		return true, nil
	}
	return false, nil
}

// resettle settles where the patch stands now that another run moved it:
// ended when that run's step removed its files (gone).
func (r *runner) resettle(ctx context.Context) (ended bool, err error) {
	var locs []string
	if err := r.reading(ctx, func() error {
		f, err := r.load()
		locs = r.locations(f)
		return err
	}); err != nil {
		return true, err
	}
	if len(locs) == 0 {
		if ok, err := r.gone(ctx); ok || err != nil {
			return true, err
		}
		// The other run pushes its record after its step: not here yet.
		last, _ := r.repo.Git.Out(ctx, "log", "-1", "--format=%H", "--", inflight.PatchFiles(r.opts.ClusterType, r.opts.Component, r.opts.Patch))
		msg := fmt.Sprintf("%.12s removed the patch's files, and strata's record does not hold it (yet): the next run settles it", last)
		if r.opts.Once {
			return true, r.pending("", last, msg)
		}
		return true, errors.New(msg)
	}
	return false, r.settle(ctx)
}

// catchUpLocked runs catchUp under the lock, unless the shared writer
// sees nothing to catch up (CaughtUp).
func (r *runner) catchUpLocked(ctx context.Context) error {
	if r.writer.Shared() && r.writer.CaughtUp(ctx, r, r.ops) {
		return nil
	}
	return r.locked(ctx, func() error { return r.catchUp(ctx) })
}
