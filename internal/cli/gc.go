package cli

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// memoryLimit is the heap size up to which a run lets garbage pile up:
// well under SPEC §9's 400 MB budget at 1,000 targets. A run of 1,000
// targets stays under it; at 10,000 targets the live heap is about 100 MB
// and the peak is set by this limit (224 MiB: 306 MB peak RSS, against 330
// MB with 256 MiB, for about 3% more wall time; docs/decisions.md, "The
// collector is tuned").
const memoryLimit = 224 << 20

// tuneGC trades a little memory for less garbage-collection work in a
// short-lived process: collect less often (GOGC 400), but let the heap grow
// past memoryLimit only as far as the run needs. GOGC and GOMEMLIMIT, when
// set, win.
//
// A fixed limit turns into garbage-collection thrash once what a run holds
// nears it (a collection after every few megabytes allocated), so after
// each collection the limit is raised to twice the live heap when that is
// more (raiseLimit): past memoryLimit, a run collects as with GOGC 100.
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
// finalizer goroutine. The next tick is made before fn runs, so that a
// collection that follows fn's effects sees it.
func watchLiveHeap(fn func()) {
	runtime.SetFinalizer(&gcTick{}, func(*gcTick) {
		watchLiveHeap(fn)
		fn()
	})
}
