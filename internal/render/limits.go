package render

import (
	"fmt"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/engine"

	"github.com/strata-fleet/strata/internal/fleet"
)

// Templates are programs, and a repository's templates (its chart, the
// templates in its values, a local Helm chart validate builds) can run for
// ever or fill the memory: `{{ range until 300000000 }}`, a deeply nested
// value through toYaml and nindent, includes that double at every level.
// Each target renders under a budget (config.yaml's render.limits,
// fleet.RenderLimits):
//
//   - time: the render runs in its own goroutine and the caller waits at
//     most timePerTarget. When the time is up, every bounded function
//     (boundedFuncs) fails from then on, which stops any loop that calls
//     one, with an error naming the template and line; a loop that calls
//     no function cannot be interrupted inside text/template, so after a
//     grace period the caller abandons it and fails the target: the
//     goroutine runs on until it ends or calls a bounded function, and the
//     command, which fails, exits without waiting for it. The targets of a
//     run share render.limits.timePerRun too, and the run stops at the
//     first target out of time (limitsrun.go).
//   - size: the functions that make large strings or lists (until, repeat,
//     indent, toYaml...) check the size of what they would make before
//     making it, against outputPerTarget, and each pass's output is
//     checked against it too, and so is the text ranges write
//     (rangetext.go). That bounds what one render allocates, except for
//     what a range's actions print, which the time limit bounds, and the
//     memory limit:
//   - memory: what the template functions of the renders in progress make
//     is counted, process-wide, before the call where its size is known
//     and after it otherwise, and may take half of render.limits.memory
//     (limitsfuncs.go): a string doubled in a loop, lists grown without
//     end, fail at the function that would go over, before the allocation
//     that would. Besides, while a target renders, the caller looks at
//     strata's heap every memoryCheck; over render.limits.memory (after a
//     collection) the target fails at once and its render is abandoned as
//     above. The heap is the process's: every target rendering then fails.
//
// Within the limits the bounded functions give Helm's bytes: they call the
// same code.

// budget is what one target's render may still use.
type budget struct {
	limits fleet.RenderLimits
	run    *run // the run's time, nil for a render of its own (limitsrun.go)
	// stop is set when the time is up: bounded functions fail from then on;
	// timeUp when it is the run's time.
	stop, timeUp atomic.Bool

	// madeBytes is what its template functions made (limitsfuncs.go).
	madeBytes atomic.Int64
	// rangeText is the text its ranges wrote (rangetext.go).
	rangeText atomic.Int64

	mu  sync.Mutex
	err *LimitError // the first limit a function hit
	// cause is the template error of the render that hit it first: later
	// attempts (shortcuts fall back to the general way) fail at their
	// first bounded function, wherever that is.
	cause error
}

func newBudget(l fleet.RenderLimits) *budget {
	if l.TimePerTarget <= 0 {
		l.TimePerTarget = fleet.DefaultTimePerTarget
	}
	if l.TimePerRun <= 0 {
		l.TimePerRun = fleet.DefaultTimePerRun
	}
	if l.OutputPerTarget <= 0 {
		l.OutputPerTarget = fleet.DefaultOutputPerTarget
	}
	if l.Memory <= 0 {
		l.Memory = fleet.DefaultMemory
	}
	return &budget{limits: l}
}

// limitErr returns the error of going over a limit.
func (b *budget) limitErr(limit, msg string) *LimitError {
	e := &LimitError{Limit: limit, Msg: msg, Set: b.limits.Pos[limit]}
	switch limit {
	case "timePerTarget":
		e.Value = b.limits.TimePerTarget.String()
	case "timePerRun":
		e.Value = b.limits.TimePerRun.String()
	case "memory":
		e.Value = fleet.FormatSize(b.limits.Memory)
	default:
		e.Value = fleet.FormatSize(b.limits.OutputPerTarget)
	}
	return e
}

// fail records the first limit a function hit and returns it.
func (b *budget) fail(e *LimitError) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err == nil {
		b.err = e
	}
	return e
}

// hit returns the first limit a function hit, or nil, and the template
// error it caused.
func (b *budget) hit() (*LimitError, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err, b.cause
}

// caused records the template error of a render under b.
func (b *budget) caused(err error) {
	if b == nil || err == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil && b.cause == nil {
		b.cause = err
	}
}

// check fails once the time is up.
func (b *budget) check() error {
	if b.stop.Load() {
		if b.timeUp.Load() {
			return b.fail(b.limitErr("timePerRun", "the run ran out of time while this target rendered"))
		}
		return b.fail(b.limitErr("timePerTarget", "the templates ran out of time"))
	}
	return nil
}

// size fails when what a function would make, n bytes, is over the size
// limit, or would take what functions made over half the memory limit, or
// when the time is up.
func (b *budget) size(n int64, what func() string) error {
	if n > b.limits.OutputPerTarget || n < 0 {
		return b.fail(b.limitErr("outputPerTarget", what()))
	}
	// Counted before it is made (limitsfuncs.go).
	return b.accountAs(n, func() string { return what() + ", which would take" })
}

// output fails when a pass's output, n bytes, is over the size limit.
func (b *budget) output(n int, what string) error {
	if int64(n) > b.limits.OutputPerTarget {
		return b.limitErr("outputPerTarget", fmt.Sprintf("%s %s", what, byteCount(int64(n))))
	}
	return nil
}

// grace is how long a render whose time is up may take to reach a bounded
// function (and fail there, naming it) before it is abandoned.
var grace = time.Second

// memoryCheck is how often a render in progress looks at the heap.
const memoryCheck = 10 * time.Millisecond

// bounded runs fn under b's limits of time and memory: fn's result, or a
// LimitError when it is over. See the top of this file for what happens
// to a render that does not stop.
func bounded[T any](b *budget, fn func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	var zero T
	select {
	case <-b.run.done():
		return zero, errRunStopped
	default:
	}
	done := make(chan result, 1)
	go func() {
		defer b.release()
		v, err := fn()
		done <- result{v, err}
	}()
	perTarget, runEnds := b.run.timeLeft(b.limits.TimePerTarget)
	timer := time.NewTimer(perTarget)
	defer timer.Stop()
	tick := time.NewTicker(memoryCheck)
	defer tick.Stop()
	limit, msg := "timePerTarget", "the templates ran out of time"
	if runEnds {
		limit, msg = "timePerRun", "the run ran out of time while this target rendered"
	}
	for waiting := true; waiting; {
		select {
		case r := <-done:
			return r.v, r.err
		case <-timer.C:
			waiting = false
		case <-b.run.done():
			// Another target is out of time: this one stops as if it were.
			b.stop.Store(true)
			select {
			case <-done:
			case <-time.After(grace):
			}
			return zero, errRunStopped
		case <-tick.C:
			if heap, over := heapOver(b.limits.Memory); over {
				b.stop.Store(true)
				e := b.limitErr("memory", fmt.Sprintf("strata's memory reached %s while this target rendered", byteCount(heap)))
				e.Abandoned = true
				return zero, e
			}
		}
	}
	b.timeUp.Store(limit == "timePerRun")
	b.stop.Store(true)
	timer.Reset(grace)
	select {
	case r := <-done:
		if r.err == nil {
			// Done just in time: the render is whole.
			return r.v, nil
		}
		b.run.stop() // the other targets stop: this error says why
		return r.v, r.err
	case <-timer.C:
		b.run.stop()
		e := b.limitErr(limit, msg+" in a loop that calls no template function")
		e.Abandoned = true
		return zero, e
	}
}

// heapOver reports whether strata's memory is over limit bytes, and its
// size: the memory the Go runtime holds from the system and has not given
// back (heap, free heap not yet returned, stacks, metadata), what the
// system counts as the process's, even after a collection that returns
// what it can (garbage does not count). The live heap alone left out
// the buffers a growing string had outgrown: a render tripped at 263 MiB
// of heap with 436 MiB resident.
func heapOver(limit int64) (int64, bool) {
	read := func() int64 {
		s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
		metrics.Read(s)
		if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return int64(s[0].Value.Uint64()) - int64(s[1].Value.Uint64())
	}
	if n := read(); n <= limit {
		return n, false
	}
	debug.FreeOSMemory()
	n := read()
	return n, n > limit
}

// byteCount prints n bytes for a message.
func byteCount(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// RenderChart renders a chart with Helm's engine, as `helm template` does,
// under limits as a target's render is: what validate does with a Helm
// chart of the repository (in its directory dir), which is as much a
// repository's template as the templates chart.
func RenderChart(c *chart.Chart, vals common.Values, limits fleet.RenderLimits, dir string) (map[string]string, error) {
	b := newBudget(limits)
	return bounded(b, func() (map[string]string, error) {
		out, err := engine.Engine{CustomTemplateFuncs: b.funcs()}.Render(tickedChart(c), vals)
		b.caused(err)
		if e, cause := b.hit(); e != nil {
			return nil, e.located(cause, dir, nil)
		}
		if err != nil {
			return nil, err
		}
		n := 0
		for _, text := range out {
			n += len(text)
		}
		if err := b.output(n, "the chart rendered"); err != nil {
			return nil, err
		}
		return out, nil
	})
}
