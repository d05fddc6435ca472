package rollout

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/hint"
	"github.com/strata-fleet/strata/internal/promote"
	"github.com/strata-fleet/strata/internal/rollout/inflight"
	"github.com/strata-fleet/strata/internal/rollout/writer"
)

// catchUp completes what an earlier run (or the user) left in the work
// tree, so that the rollout goes on from what the repository says: an
// interrupted promotion is completed and committed as its step; the
// patch's own files, uncommitted (its first copy, written by hand), are
// committed as the rollout's first step; commits not pushed yet are pushed.
// Any other uncommitted change under config/ or rendered/ stops it.
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

// checkClean refuses uncommitted changes under config/ that are not the
// patch's own files (or rendered/'s) among dirty (repo.dirty of config/
// and rendered/): the step's commit would take them along. Another
// command of the repository may have left them while the rollout waited
// without the lock.
func (r *runner) checkClean(dirty []string) error {
	// Other patches' first copies are theirs to commit: the step leaves
	// them out (r.hide, firstcopies.go).
	r.hide = writer.OtherFirstCopies(r.opts.ClusterType, r.opts.Component, r.opts.Patch, dirty)
	root, err := r.OutputRoot()
	if err != nil {
		return err
	}
	other := promote.Unrelated(root, r.opts.ClusterType, r.opts.Component, r.opts.Patch, nil, dirty)
	other = slices.DeleteFunc(other, func(l string) bool { return slices.Contains(r.hide, git.DirtyPath(l)) })
	if len(other) > 0 {
		return fmt.Errorf("config/ or rendered/ has uncommitted changes that are not %s's own (commit or discard them, then run the rollout again):\n  %s",
			r.opts.Patch, strings.Join(other, "\n  "))
	}
	return nil
}

// settle waits for where the patch already is: the targets under its
// locations synced at the last commit that changed their rendered output
// and healthy, for what remains of the soak since they became so
// (remainingSoak: from Argo CD's own times, not the commit's), and the
// checks of its latest location passing. A failure there is the failure of
// the last commit that moved the patch.
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
	var dirs, ids []string
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
	st.pick = pickClusters(f, func(c *fleet.Cluster) bool { return inflight.Under(c.Target.ID(), locs) })
	if len(dirs) == 0 {
		r.emit(Event{Kind: KindStart, Step: st.node, Message: fmt.Sprintf("%s is at %s, where no cluster of the inventory runs", r.opts.Patch, strings.Join(locs, ", "))})
		return nil
	}
	commit, err := r.repo.Run(ctx, append([]string{"log", "-1", "--format=%H", "--"}, dirs...)...)
	if err != nil {
		return err
	}
	if commit == "" {
		return fmt.Errorf("%s is not committed: commit rendered/ first", strings.Join(dirs, ", "))
	}
	st.commit = commit
	if st.revert, err = r.repo.Run(ctx, "log", "-1", "--format=%H", "--", inflight.PatchFiles(r.opts.ClusterType, r.opts.Component, r.opts.Patch)); err != nil {
		return err
	}
	// A failure names the patch's own last commit, not the last commit
	// over its targets' output (another patch's, maybe).
	st.own = st.revert
	// A failure strata recorded, the patch unchanged since: stopped, in
	// every mode.
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
	return nil
}
