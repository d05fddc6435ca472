package rollout

import (
	"context"
	"fmt"

	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/record"
	"github.com/strata-fleet/strata/internal/rollout/inflight"
	"github.com/strata-fleet/strata/internal/rollout/writer"
)

// reverted is how strata's revert of a failed step ended.
type reverted struct {
	commit string
	// theirs: another run had the step undone on the remote (upstream
	// then); recorded: the record says so already.
	theirs, recorded bool
	upstream         string
}

// revertStep reverts st's failed step and pushes the revert, under the
// lock. On a remote that moved the unpushed revert is dropped (reset to
// the remote) and the remote's revert of the step taken, or it is made
// again there, at most writer.MaxReplays times.
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

// makeRevert commits the revert of st.revert on HEAD with Strata-Failed
// trailers; one that does not apply is abandoned, the work tree kept.
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

// undoneUpstream is the commit of upstream that undid st's step: the
// record's revert of it (recorded), else the last commit of the patch's
// files when they are again what they were before st.revert; "": none.
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
