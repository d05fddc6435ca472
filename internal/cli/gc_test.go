package cli

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestNextLimit(t *testing.T) {
	for _, tc := range []struct{ limit, live, want int64 }{
		{limit: 300, live: 0, want: 300},
		{limit: 300, live: 150, want: 300},
		{limit: 300, live: 200, want: 400},
		{limit: 400, live: 100, want: 400}, // never lowered
	} {
		if got := nextLimit(tc.limit, tc.live); got != tc.want {
			t.Errorf("nextLimit(%d, %d) = %d, want %d", tc.limit, tc.live, got, tc.want)
		}
	}
}

// TestWatchLiveHeapRunsAfterEachCollection checks that the limit is looked
// at again after collections, not only once.
func TestWatchLiveHeapRunsAfterEachCollection(t *testing.T) {
	calls := make(chan struct{}, 1)
	watchLiveHeap(func() {
		select {
		case calls <- struct{}{}:
		default:
		}
	})
	deadline := time.After(10 * time.Second)
	for range 3 {
		runtime.GC()
		select {
		case <-calls:
		case <-deadline:
			t.Fatal("no call after a garbage collection")
		}
	}
}

// tuneGC sets GOGC 400 and its memory limit, unless the environment sets
// them.
func TestTuneGC(t *testing.T) {
	percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
	for _, tc := range []struct {
		gogc, gomemlimit string
		percent          int
		limit            int64
	}{
		{"", "", 400, memoryLimit},
		{"", "1GiB", 400, 1 << 30},
		{"150", "", 150, memoryLimit},
		{"150", "1GiB", 150, 1 << 30},
	} {
		t.Setenv("GOGC", tc.gogc)
		t.Setenv("GOMEMLIMIT", tc.gomemlimit)
		// What the runtime read from the environment at start-up.
		debug.SetGCPercent(150)
		debug.SetMemoryLimit(1 << 30)
		tuneGC()
		if got := debug.SetGCPercent(100); got != tc.percent {
			t.Errorf("GOGC=%q GOMEMLIMIT=%q: GC percent %d, want %d", tc.gogc, tc.gomemlimit, got, tc.percent)
		}
		if got := debug.SetMemoryLimit(-1); got < tc.limit {
			t.Errorf("GOGC=%q GOMEMLIMIT=%q: memory limit %d, want at least %d", tc.gogc, tc.gomemlimit, got, tc.limit)
		}
	}
}
