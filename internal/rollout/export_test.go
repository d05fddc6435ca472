package rollout

import (
	"os"
	"sync/atomic"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/rollout/livecache"
	"github.com/strata-fleet/strata/internal/rollout/writer"
)

// SetQueuedHook tells f of each step asked of RunAll's writer, for the
// tests that need several steps ready at once; it returns the undo.
func SetQueuedHook(f func(patch string)) (undo func()) {
	writer.QueuedHook = f
	return func() { writer.QueuedHook = nil }
}

// CountReactions makes the rollouts of this process count the changes
// that woke a wait (woken) and the evaluations of a wait's verdict
// (evaluated), until undo.
func CountReactions() (woken, evaluated func() int64, undo func()) {
	countReactions = &livecache.Reactions{}
	return countReactions.Woken.Load, countReactions.Evaluated.Load, func() { countReactions = nil }
}

// compareReads are CompareAdvanced's own reads of the expectation.
var compareReads atomic.Int64

// ExpectationReads is how many times the rollouts of this process read
// what the rendered output expects (live.Expect and the history).
func ExpectationReads() int64 { return writer.ExpectationReads() - compareReads.Load() }

// CompareAdvanced has each expectation a writer advances after its push
// (expectAfter) compared with a whole read of dir at that HEAD, the
// differences told to errorf; it returns how many were compared, and the
// undo.
func CompareAdvanced(dir string, errorf func(string, ...any)) (compared func() int, undo func()) {
	n := 0
	writer.AdvancedHook = func(e *writer.Expectation) {
		n++
		full, err := writer.ReadExpectation(os.DirFS(dir), dir)
		compareReads.Add(1) // the comparison's, not the rollouts'
		if err != nil {
			errorf("reading the expectation at %s: %v", e.Head, err)
			return
		}
		if full.Head != e.Head {
			errorf("advanced to %s, HEAD is %s", e.Head, full.Head)
		}
		if d := cmp.Diff(full.Expected, e.Expected); d != "" {
			errorf("advanced expectation at %.12s (-read +advanced):\n%s", e.Head, d)
		}
		for _, x := range full.Expected {
			wc, wd := full.History.LastChange(x.File)
			gc, gd := e.History.LastChange(x.File)
			if wc != gc || wd != gd {
				errorf("%s: last changed by %.12s (uncommitted %v), advanced says %.12s (%v)", x.File, wc, wd, gc, gd)
			}
		}
	}
	return func() int { return n }, func() { writer.AdvancedHook = nil }
}
