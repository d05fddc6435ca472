package cli

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// memoryLimit is the heap size up to which a run lets garbage pile up,
// well under SPEC §9's 400 MB budget (docs/decisions.md, "The collector
// is tuned").
const memoryLimit = 224 << 20

// tuneGC collects less often (GOGC 400) up to memoryLimit, then raises the
// limit to twice the live heap after each collection (raiseLimit), so that
// a fixed limit never turns into thrash. GOGC and GOMEMLIMIT, when set, win.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
		watchOnce.Do(func() { watchLiveHeap(raiseLimit) })
	}
}

var watchOnce sync.Once

// nextLimit is the memory limit for a live heap of live bytes.
func nextLimit(limit, live int64) int64 { return max(limit, 2*live) }

// raiseLimit raises the memory limit after a collection, if the live heap
// needs it.
func raiseLimit() {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	limit := debug.SetMemoryLimit(-1)
	if next := nextLimit(limit, int64(sample[0].Value.Uint64())); next != limit {
		debug.SetMemoryLimit(next)
	}
}

// gcTick is an object whose finalizer runs after a collection.
type gcTick struct{ _ [16]byte } // not a tiny allocation, which may never be freed alone

// watchLiveHeap calls fn after every garbage collection, from the
// finalizer goroutine (the next tick made first).
func watchLiveHeap(fn func()) {
	runtime.SetFinalizer(&gcTick{}, func(*gcTick) {
		watchLiveHeap(fn)
		fn()
	})
}
