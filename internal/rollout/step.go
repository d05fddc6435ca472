package rollout

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/promote"
	"github.com/strata-fleet/strata/internal/record"
	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/rollout/writer"
)

// commitStep makes and pushes (PushOne) the step catchUp completes: plan
// (nil: the first copy; applied: resumed from its journal), under its lock.
func (r *runner) commitStep(ctx context.Context, plan *promote.Plan, applied bool) error {
	base, err := r.repo.Git.Head(ctx)
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

// makeStep makes plan's step with action.Step.Run, committed with g,
// unpushed (r.making).
func (r *runner) makeStep(ctx context.Context, plan *promote.Plan, g git.Repo, applied bool) (*step, error) {
	f, err := r.load()
	if err != nil {
		return nil, err
	}
	act := r.action(r.hide...)
	act.Applied = applied
	c := action.Commit{Git: g, Paths: []string{"config", render.OutputDir}, Planned: true,
		Trailers: append([]string{"Strata-Rollout: " + r.ID()}, r.unhealthy...)}
	for _, p := range r.hide {
		c.Paths = append(c.Paths, ":(exclude)"+p)
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

// checkRendered refuses plan's step (nil: the first copy) when rendered/
// does not follow config/ before it: its render would deliver another
// change under this patch's commit. Not checked when applied or when the
// user rendered a first copy (rendered/ uncommitted).
func (r *runner) checkRendered(plan *promote.Plan, applied bool) error {
	if applied || (plan == nil && (len(r.ownFirst) == 0 || r.renderedDirty)) {
		return nil
	}
	hide := r.hide
	if plan == nil {
		hide = append(slices.Clone(r.hide), r.ownFirst...)
	}
	ts, err := r.action(hide...).Unrendered(plan)
	if err != nil || len(ts) == 0 {
		return err
	}
	return &action.UnrenderedError{Patch: r.ID(), Targets: ts}
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

// Pushed records that the step made is pushed, and says so (writer.Rollout).
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
	p := r.patchFile(node)
	data, err := fs.ReadFile(r.fsys, p)
	if err != nil {
		return nil, err
	}
	return promote.ReadMeta(p, data)
}

// ready plans the next step on the work tree, under the caller's lock;
// nil when the rollout ends there. dirty: see checkClean.
func (r *runner) ready(ctx context.Context, dirty []string) (*promote.Plan, error) {
	f, err := r.load()
	if err != nil {
		return nil, err
	}
	if len(r.locations(f)) == 0 {
		return nil, errMoved // another run's fold
	}
	plan, err := r.next(f)
	if err != nil || plan == nil {
		return nil, err
	}
	if err := r.watchablePlan(f, plan); err != nil {
		return nil, err
	}
	if err := r.checkClean(dirty); err != nil {
		return nil, err
	}
	// Another run may have taken this step and seen it fail, or taken a
	// step this run has not seen pass (settled first).
	if err := r.stopped(ctx, plan.Target); err != nil {
		r.emitStopped(err)
		return nil, err
	}
	if r.verified != "" {
		files, err := record.FilesOf(ctx, r.env.Git, "HEAD", r.ID())
		if err != nil {
			return nil, err
		}
		if files != r.verified {
			return nil, errMoved
		}
	}
	if err := r.reach(ctx); err != nil {
		return nil, err
	}
	return plan, nil
}

// checkClean refuses changes among dirty (uncommitted, under config/ and
// rendered/) that are not the patch's own nor other patches' first copies
// (left out: r.hide): the step's commit would take them along.
func (r *runner) checkClean(dirty []string) error {
	r.hide = writer.OtherFirstCopies(r.opts.ClusterType, r.opts.Component, r.opts.Patch, dirty)
	root, err := r.OutputRoot()
	if err != nil {
		return err
	}
	r.ownFirst, r.renderedDirty = writer.OwnFirstCopies(r.opts.ClusterType, r.opts.Component, r.opts.Patch, dirty), false
	for _, l := range dirty {
		if p := git.DirtyPath(l); p == root || strings.HasPrefix(p, root+"/") {
			r.renderedDirty = true
		}
	}
	other := promote.Unrelated(root, r.opts.ClusterType, r.opts.Component, r.opts.Patch, nil, dirty)
	other = slices.DeleteFunc(other, func(l string) bool { return slices.Contains(r.hide, git.DirtyPath(l)) })
	if len(other) > 0 {
		return fmt.Errorf("config/ or rendered/ has uncommitted changes that are not %s's own (commit or discard them, then run the rollout again):\n  %s",
			r.opts.Patch, strings.Join(other, "\n  "))
	}
	return nil
}
