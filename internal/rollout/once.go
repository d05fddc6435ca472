package rollout

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// A --once run's waits look once and end the run with a *pendingError
// where not over (Result.Stopped StoppedPending); soak and timeout count
// from the step's commit time, as a scheduled job keeps no timer.

// pendingError ends a --once run at a wait that is not over.
type pendingError struct {
	step, commit string
	// waiting says what it waits for.
	waiting string
}

func (e *pendingError) Error() string { return "in progress: " + e.waiting }

// pending ends a --once run's wait: waiting says for what.
func (r *runner) pending(step, commit, waiting string) error {
	return &pendingError{step: step, commit: commit, waiting: waiting}
}

// commitTime is commit's committer date.
func (r *runner) commitTime(ctx context.Context, commit string) (time.Time, error) {
	out, err := r.repo.Git.Out(ctx, "log", "-1", "--format=%ct", commit)
	if err != nil {
		return time.Time{}, err
	}
	sec, err := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("the commit time of %.12s: %q: %w", commit, out, err)
	}
	return time.Unix(sec, 0), nil
}

// waitStart is when the wait for st began: now, or for a --once run the
// step's commit time, so that its timeout spans the runs.
func (r *runner) waitStart(ctx context.Context, st *step) (time.Time, error) {
	if !r.opts.Once || st.commit == "" {
		return r.env.Clock.Now(), nil
	}
	return r.commitTime(ctx, st.commit)
}
