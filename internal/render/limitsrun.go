package render

// The time of a whole run. Each target renders under timePerTarget, and
// all the targets of a run (RenderStream) under timePerRun, from the
// run's start: a target's time is what is left of both. Once a target is
// out of time (its own or the run's), the run stops: the targets still
// rendering stop as a target out of time does (limits.go), those not
// started fail at once, and only the first is reported. Three runaway
// targets take the limit once, not three times.

import (
	"errors"
	"sync"
	"time"
)

// run is the time budget of the targets of one run.
type run struct {
	deadline time.Time
	stopped  chan struct{} // closed when the run stops
	once     sync.Once
}

func newRun(timePerRun time.Duration) *run {
	r := &run{stopped: make(chan struct{})}
	if timePerRun > 0 {
		r.deadline = time.Now().Add(timePerRun)
	}
	return r
}

// stop stops the run.
func (r *run) stop() { r.once.Do(func() { close(r.stopped) }) }

// timeLeft is how long a target starting now may render, and whether the
// run's time, rather than the target's, ends it.
func (r *run) timeLeft(perTarget time.Duration) (time.Duration, bool) {
	if r == nil || r.deadline.IsZero() {
		return perTarget, false
	}
	if left := time.Until(r.deadline); left < perTarget {
		return max(left, 0), true
	}
	return perTarget, false
}

// done is closed when the run stops; nil (never) without a run.
func (r *run) done() <-chan struct{} {
	if r == nil {
		return nil
	}
	return r.stopped
}

// errRunStopped is the error of a target that did not render because
// another ran out of time: the other's error says why.
var errRunStopped = errors.New("not rendered: the run stopped when another target ran out of time")
