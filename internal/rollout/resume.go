package rollout

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/hint"
	"github.com/strata-fleet/strata/internal/promote"
	"github.com/strata-fleet/strata/internal/rollout/inflight"
)

// catchUp completes what an earlier run or the user left: an interrupted
// promotion as its step, the patch's uncommitted first copy as the first
// step, commits not pushed yet pushed; any other uncommitted change under
// config/ or rendered/ stops it.
func (r *runner) catchUp(ctx context.Context) error {
	pending, err := promote.Pending(r.ops)
	if err != nil {
		return err
	}
	if pending != nil {
		if !pending.Is(r.opts.ClusterType, r.opts.Component, strings.TrimSuffix(r.opts.Patch, ".yaml")) {
			return hint.Errorf("%s; finish it with %s (or drop it with %s) first", pending.Describe(), promote.ResumeCommand, promote.AbandonCommand)
		}
		j, err := promote.Resume(r.ops)
		if err != nil {
			return err
		}
		r.emit(Event{Kind: KindResumed, Step: j.Plan.Target, Message: "completing " + pending.Describe()})
		if err := r.reach(ctx); err != nil {
			return err
		}
		return r.commitStep(ctx, j.Plan, true)
	}
	dirty, err := r.Dirty(ctx)
	if err != nil {
		return err
	}
	if len(dirty) > 0 {
		if err := r.checkClean(dirty); err != nil {
			return err
		}
		if err := r.reach(ctx); err != nil {
			return err
		}
		if err := r.holdFirstCopy(ctx); err != nil {
			return err
		}
		return r.commitStep(ctx, nil, false)
	}
	ahead, err := r.repo.Unpushed(ctx)
	if err != nil || !ahead {
		return err
	}
	if err := r.reach(ctx); err != nil {
		return err
	}
	return r.repo.Push(ctx)
}

// settle waits for where the patch already is: the targets under its
// locations synced and healthy, what remains of the soak (remainingSoak),
// the checks of its latest location; a failure there is its last step's.
func (r *runner) settle(ctx context.Context) error {
	f, err := r.load()
	if err != nil {
		return err
	}
	locs := r.locations(f)
	if len(locs) == 0 {
		return nil // promote.Prepare says why
	}
	st := &step{node: locs[len(locs)-1], settle: true}
	st.policy = r.policyAt(f, st.node)
	ids, dirs := r.settleTargets(f, locs, st)
	st.pick = pickClusters(f, func(c *fleet.Cluster) bool { return inflight.Under(c.Target.ID(), locs) })
	// A patch committed without strata render is not delivered yet.
	if err := r.reading(ctx, func() error { return r.checkDelivered(f, locs) }); err != nil {
		return r.renderFirstCopy(ctx, f, locs, err)
	}
	if len(dirs) == 0 {
		if !st.policy.NoWatch || len(st.policy.Checks) == 0 {
			r.emit(Event{Kind: KindStart, Step: st.node, Message: fmt.Sprintf("%s is at %s, where no cluster of the inventory runs", r.opts.Patch, strings.Join(locs, ", "))})
			return nil
		}
		// Checks only (watch: false): the step's verdict, run again.
		dirs = r.locDirs(f, locs)
	}
	commit, err := r.repo.Git.Out(ctx, append([]string{"log", "-1", "--format=%H", "--"}, dirs...)...)
	if err != nil {
		return err
	}
	if commit == "" {
		return fmt.Errorf("%s is not committed: commit rendered/ first", strings.Join(dirs, ", "))
	}
	st.commit = commit
	if st.revert, err = r.repo.Git.Out(ctx, "log", "-1", "--format=%H", "--", inflight.PatchFiles(r.opts.ClusterType, r.opts.Component, r.opts.Patch)); err != nil {
		return err
	}
	// A failure names the patch's own last commit.
	st.own = st.revert
	// A failure strata recorded, the patch unchanged since: stopped.
	if err := r.stopped(ctx, st.node); err != nil {
		r.emitStopped(err)
		return err
	}
	if err := r.reach(ctx); err != nil {
		return err
	}
	r.emit(Event{Kind: KindStart, Step: st.node, Commit: commit, Targets: ids,
		Message: fmt.Sprintf("%s is at %s: waiting for its targets", r.opts.Patch, strings.Join(locs, ", "))})
	if err := r.verify(ctx, st); err != nil {
		return r.failed(ctx, st, err)
	}
	r.passedAt(ctx, st.revert)
	return nil
}

// checkDelivered returns an *action.UnrenderedError when the output of
// the targets under locs does not follow config/ (committed without
// strata render: not delivered).
func (r *runner) checkDelivered(f *fleet.Fleet, locs []string) error {
	ts, err := r.action(r.hide...).UnrenderedIn(f.Config, r.locDirs(f, locs))
	if err != nil || len(ts) == 0 {
		return err
	}
	return &action.UnrenderedError{Patch: r.ID(), Targets: ts, Delivered: true}
}

// onlyUnrendered says whether the patch's copies own are all that
// rendered/ does not follow.
func (r *runner) onlyUnrendered(f *fleet.Fleet, own []string) (bool, error) {
	ts, err := r.action(append(slices.Clone(r.hide), own...)...).UnrenderedIn(f.Config, nil)
	return len(ts) == 0, err
}

// locDirs are the directories of rendered/ that hold the output of the
// targets under locs (nil: every target's, when that cannot be told).
func (r *runner) locDirs(f *fleet.Fleet, locs []string) []string {
	var dirs []string
	for _, l := range locs {
		d, ok := f.Config.NodeDirs(r.opts.ClusterType, l)
		if !ok {
			return nil
		}
		dirs = append(dirs, d...)
	}
	return dirs
}

// settleTargets gives st the targets under locs with their clusters, and
// returns the ids and directories of those the layout places.
func (r *runner) settleTargets(f *fleet.Fleet, locs []string, st *step) (ids, dirs []string) {
	for _, c := range f.Clusters {
		if c.Type != r.opts.ClusterType || c.Target == nil || !inflight.Under(c.Target.ID(), locs) {
			continue
		}
		id := c.Type + "/" + c.Target.ID()
		if i := slices.IndexFunc(st.targets, func(t *target) bool { return t.ID == id }); i >= 0 {
			st.targets[i].Clusters = append(st.targets[i].Clusters, c.Name)
			continue
		}
		st.targets = append(st.targets, &target{ID: id, Clusters: []string{c.Name}})
		dir, ok := f.Config.TargetDirOf(id)
		if !ok {
			continue
		}
		ids, dirs = append(ids, id), append(dirs, dir)
	}
	return ids, dirs
}

// renderFirstCopy makes the render of a first copy committed by hand
// without it the first step, when nothing else is unrendered (err,
// checkDelivered's), then settles again.
func (r *runner) renderFirstCopy(ctx context.Context, f *fleet.Fleet, locs []string, err error) error {
	var un *action.UnrenderedError
	if r.startedUnrendered || !errors.As(err, &un) {
		return err
	}
	own := make([]string, len(locs))
	for i, l := range locs {
		own[i] = r.patchFile(l)
	}
	var only bool
	if e := r.reading(ctx, func() (e error) { only, e = r.onlyUnrendered(f, own); return e }); e != nil || !only {
		return errors.Join(err, e)
	}
	r.startedUnrendered = true
	if err := r.reach(ctx); err != nil {
		return err
	}
	if err := r.locked(ctx, func() error { return r.commitStep(ctx, nil, false) }); err != nil {
		return err
	}
	return r.settle(ctx)
}
