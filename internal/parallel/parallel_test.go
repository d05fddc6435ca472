package parallel

import (
	"sync/atomic"
	"testing"
)

// TestEachCallsEveryIndexOnce checks that every index is called exactly
// once, with more workers than indices, fewer, and none to do.
func TestEachCallsEveryIndexOnce(t *testing.T) {
	for _, tc := range []struct{ workers, n int }{{4, 100}, {8, 3}, {1, 10}, {2, 0}} {
		calls := make([]atomic.Int32, tc.n)
		Each(tc.workers, tc.n, func(i int) { calls[i].Add(1) })
		for i := range calls {
			if got := calls[i].Load(); got != 1 {
				t.Errorf("workers %d, n %d: index %d called %d times", tc.workers, tc.n, i, got)
			}
		}
	}
}
