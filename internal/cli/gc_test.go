package cli

import (
	"runtime"
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
