package rollout

import (
	"context"
	"fmt"
	"slices"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/record"
	"github.com/strata-fleet/strata/internal/rollout/inflight"
)

// gone settles a rollout whose patch has no files left, from the last
// commit that changed them as strata's record knows it: a recorded fold is
// verified as its last step unless its verdict is recorded; strata's
// revert of a step is the failure it was. ok is false when the record
// holds neither: promote says what it knows of the patch.
func (r *runner) gone(ctx context.Context) (ok bool, err error) {
	last, err := r.repo.Git.Out(ctx, "log", "-1", "--format=%H", "--", inflight.PatchFiles(r.opts.ClusterType, r.opts.Component, r.opts.Patch))
	if err != nil || last == "" {
		return false, err
	}
	fold, ended, err := r.goneRecorded(ctx, last)
	if ended || err != nil {
		return true, err
	}
	if fold == nil {
		return false, nil
	}
	f, err := r.load()
	if err != nil {
		return false, err
	}
	ids := fold.Targets
	st := &step{node: inflight.LastNode(ids, r.opts.ClusterType), settle: true, revert: last, own: last, targets: targetsOf(f, ids)}
	if st.node == "" {
		r.done(StoppedDone, "", r.opts.Patch+" is folded and no target's rendered output changed", "")
		return true, nil
	}
	st.policy = r.foldPolicy(f, ids)
	// The objects whose rendered file changed last at or after the fold.
	var dirs []string
	for _, id := range ids {
		if paths, ok := f.Config.TargetPathsOf(id); ok { // with its values file
			dirs = append(dirs, paths...)
		} else if dir, _ := f.Config.TargetDirOf(id); f.Config.Layout.Default() {
			dirs = append(dirs, dir)
		}
	}
	if len(dirs) == 0 { // no target of the fold is in the layout any more
		dirs = []string{f.Config.OutputRoot()}
	}
	if st.commit, err = r.repo.Git.Out(ctx, append([]string{"log", "-1", "--format=%H", "--"}, dirs...)...); err != nil {
		return true, err
	}
	st.pick = pickClusters(f, func(c *fleet.Cluster) bool { return slices.Contains(ids, c.Type+"/"+c.Target.ID()) })
	if err := r.reach(ctx); err != nil {
		return true, err
	}
	r.emit(Event{Kind: KindStart, Step: st.node, Commit: last, Targets: ids,
		Message: fmt.Sprintf("%s is folded by %.12s: waiting for its last step's targets", r.opts.Patch, last)})
	if err := r.verify(ctx, st); err != nil {
		return true, r.failed(ctx, st, err)
	}
	r.done(StoppedDone, "", r.opts.Patch+" is rolled out and folded", "")
	return true, nil
}

// goneRecorded reads the record of last, the commit that removed the
// patch's files (or its copy after a rewrite of the branch: CommitsOf): a
// failure or revert ends the rollout failed, a pass done (ended); else
// the fold's step entry (nil: none).
func (r *runner) goneRecorded(ctx context.Context, last string) (fold *record.Entry, ended bool, err error) {
	rec, err := r.Record().Read(ctx)
	if err != nil {
		return nil, true, err
	}
	for _, e := range rec.Of(r.ID()) {
		if step, revert := rec.CommitsOf(ctx, e); !(e.Kind == record.KindReverted && revert == last || step == last) {
			continue // "" for an entry not trusted
		}
		switch e.Kind {
		case record.KindReverted, record.KindFailed:
			err := r.recordedStop(ctx, rec, e, "")
			r.emitStopped(err)
			return nil, true, err
		case record.KindPassed:
			r.done(StoppedDone, "", r.opts.Patch+" is rolled out and folded", "")
			return nil, true, nil
		}
		if fold == nil {
			fold = &e
		}
	}
	return fold, false, nil
}
