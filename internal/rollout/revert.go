package rollout

import (
	"context"
	"fmt"

	"github.com/strata-fleet/strata/internal/record"
	"github.com/strata-fleet/strata/internal/rollout/inflight"
	"github.com/strata-fleet/strata/internal/rollout/writer"
)

// reverted is strata's revert of st's failed step as the writer
// publishes it (writer.Rollout, with its own Remake), and how it ended.
type reverted struct {
	*runner
	st       *step
	failures []Failure
	commit   string
	// theirs: another run had the step undone on the remote (upstream
	// then); recorded: the record says so already.
	theirs, recorded bool
	upstream         string
}

// revertStep reverts st's failed step and pushes the revert through the
// writer's one push loop (Writer.Publish), under the lock.
func (r *runner) revertStep(ctx context.Context, st *step, failures []Failure) (*reverted, error) {
	rv := &reverted{runner: r, st: st, failures: failures}
	err := r.locked(ctx, func() error {
		base, err := r.repo.Git.Head(ctx)
		if err != nil {
			return err
		}
		made := &writer.Step{}
		if made.Commit, err = r.makeRevert(ctx, st, failures); err != nil {
			return err
		}
		err = r.writer.Publish(ctx, rv, made, base)
		rv.commit = made.Commit
		return err
	})
	return rv, err
}

// Remake drops the unpushed revert (HEAD is reset to upstream) and takes
// the remote's own undoing of the step, or makes the revert again there.
func (rv *reverted) Remake(ctx context.Context, made *writer.Step, _, upstream string) error {
	theirs, recorded, err := rv.undoneUpstream(ctx, rv.st, upstream)
	switch {
	case err != nil:
		return err
	case theirs != "":
		made.Commit, rv.theirs, rv.recorded, rv.upstream = theirs, true, recorded, upstream
		return nil
	}
	made.Commit, err = rv.makeRevert(ctx, rv.st, rv.failures)
	return err
}

// makeRevert commits the revert of st.revert on HEAD with Strata-Failed
// trailers; one that does not apply is abandoned, the work tree kept.
func (r *runner) makeRevert(ctx context.Context, st *step, failures []Failure) (string, error) {
	if _, err := r.repo.Git.Out(ctx, "revert", "--no-edit", st.revert); err != nil {
		_, _ = r.repo.Git.Out(ctx, "revert", "--abort")
		return "", fmt.Errorf("reverting %.12s: %w", st.revert, err)
	}
	if _, err := r.repo.Git.Out(ctx, append([]string{"commit", "--amend", "-q", "--no-edit"}, failedTrailers(st.node, failures)...)...); err != nil {
		return "", fmt.Errorf("recording the failure in the revert of %.12s: %w", st.revert, err)
	}
	return r.repo.Git.Head(ctx)
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
	commit, err = r.repo.Git.Out(ctx, "log", "-1", "--format=%H", upstream, "--", inflight.PatchFiles(r.opts.ClusterType, r.opts.Component, r.opts.Patch))
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
