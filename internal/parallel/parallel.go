package parallel

import (
	"sync"
	"sync/atomic"
)

// Each calls fn for each of 0..n-1 on up to workers goroutines, and
// returns when every call has.
func Each(workers, n int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		})
	}
	wg.Wait()
}
