package rollout

import (
	"context"
	"fmt"

	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/record"
	"github.com/strata-fleet/strata/internal/rollout/inflight"
	"github.com/strata-fleet/strata/internal/rollout/writer"
)

// reverted is how strata's revert of a failed step ended: the revert
// commit on the remote branch, and, when another run (CI's --once beside
// a --watch) reverted the same step first, that the revert is theirs.
type reverted struct {
	commit string
	// theirs: the remote already had the step undone; upstream is where
	// the remote stood then; recorded that strata's record already says
	// so (another run's revert), else this run records it.
	theirs, recorded bool
	upstream         string
}

// revertStep reverts st's failed step (st.revert) and pushes the revert,
// under the repository lock. A push refused because the remote moved is
// no failure: this clone's revert, unpushed, is dropped (HEAD reset to
// the remote's commit, every commit others pushed kept) and, when the
// remote has the step undone already (another run reverted it: the same
// verdict), that revert is taken; else the revert is made again there and
// pushed, at most writer.MaxReplays times. A revert kept unpushed made the
// clone diverge from the remote, and a --watch runner answered every
// later look with the force-push message.
func (r *runner) revertStep(ctx context.Context, st *step, failures []Failure) (rv reverted, err error) {
	backoff := r.env.PushBackoff
	if backoff <= 0 {
		backoff = writer.DefaultPushBackoff
	}
	err = r.locked(ctx, func() error {
		for attempt := 0; ; attempt++ {
			if rv.commit, err = r.makeRevert(ctx, st, failures); err != nil {
				return err
			}
			perr := r.repo.Push(ctx)
			if perr == nil {
				return nil
			}
			upstream, moved := r.repo.Moved(ctx)
			if r.repo.Landed(ctx, upstream) {
				return nil // another run made and pushed this very revert
			}
			if !moved || attempt == writer.MaxReplays {
				return perr
			}
			// Drop the revert made here: the remote's history goes on.
			if err := r.repo.ResetKeep(ctx, upstream); err != nil {
				return err
			}
			if theirs, recorded, err := r.undoneUpstream(ctx, st, upstream); err != nil || theirs != "" {
				rv = reverted{commit: theirs, theirs: true, recorded: recorded, upstream: upstream}
				return err
			}
			if err := git.Pause(ctx, backoff<<attempt); err != nil {
				return err
			}
		}
	})
	return rv, err
}

// makeRevert commits the revert of st.revert on HEAD, its Strata-Failed
// trailers saying why (for status: Flights), and returns it. A revert
// that does not apply (the patch changed meanwhile) is abandoned, the
// work tree left as it was.
func (r *runner) makeRevert(ctx context.Context, st *step, failures []Failure) (string, error) {
	if _, err := r.repo.Run(ctx, "revert", "--no-edit", st.revert); err != nil {
		_, _ = r.repo.Run(ctx, "revert", "--abort")
		return "", fmt.Errorf("reverting %.12s: %w", st.revert, err)
	}
	if _, err := r.repo.Run(ctx, append([]string{"commit", "--amend", "-q", "--no-edit"}, failedTrailers(st.node, failures)...)...); err != nil {
		return "", fmt.Errorf("recording the failure in the revert of %.12s: %w", st.revert, err)
	}
	return r.repo.Head(ctx)
}

// undoneUpstream is the commit of upstream that undid st's step when the
// remote has it undone already: strata's record of a revert of the step
// (fetched with the branch; recorded), else the last commit that changed
// the patch's files, when they are again what they were before st.revert
// (another run's revert whose record is not pushed yet). "": the step is
// not undone there.
func (r *runner) undoneUpstream(ctx context.Context, st *step, upstream string) (commit string, recorded bool, err error) {
	rec, err := r.Record().Read(ctx)
	if err != nil {
		return "", false, err
	}
	for _, e := range rec.Of(r.ID()) {
		if e.Kind != record.KindReverted || e.Step != st.commit && e.Step != st.revert {
			continue
		}
		if err := rec.Trusted(ctx, e); err == nil {
			return e.Revert, true, nil
		}
	}
	before, err := record.FilesOf(ctx, r.env.Git, st.revert+"^", r.ID())
	if err != nil {
		return "", false, err
	}
	now, err := record.FilesOf(ctx, r.env.Git, upstream, r.ID())
	if err != nil || now != before {
		return "", false, err
	}
	commit, err = r.repo.Run(ctx, "log", "-1", "--format=%H", upstream, "--", inflight.PatchFiles(r.opts.ClusterType, r.opts.Component, r.opts.Patch))
	return commit, false, err
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
