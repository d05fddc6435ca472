package render

import (
	"errors"
	"runtime"
	"sync/atomic"

	"github.com/strata-fleet/strata/internal/parallel"
	"github.com/strata-fleet/strata/internal/values"
)

// RenderAll renders targets in parallel and returns their outputs in the
// order of targets. progress, when not nil, is called after each target
// (from any goroutine). When targets fail, the errors of the first ones in
// target order are returned, joined.
func (r *Renderer) RenderAll(targets []Target, progress func(done, total int)) ([]*Output, error) {
	outs := make([]*Output, len(targets))
	err := r.RenderStream(targets, progress, func(i int, o *Output) error {
		outs[i] = o
		return nil
	})
	if err != nil {
		return nil, err
	}
	return outs, nil
}

// RenderStream renders targets in parallel and hands each output, as soon
// as it is rendered, to sink with the target's index (called from the
// rendering goroutines), keeping nothing of it: memory does not grow with
// the number of targets. An error from sink fails that target. Errors are
// returned as RenderAll returns them. Targets are taken a window at a
// time, whose new items render together first (warm.go).
func (r *Renderer) RenderStream(targets []Target, progress func(done, total int), sink func(i int, o *Output) error) error {
	errs := make([]error, len(targets))
	var done atomic.Int64
	run := newRun(r.limits().TimePerRun)
	workers := runtime.GOMAXPROCS(0)
	vals := make([]*values.Value, min(warmWindow, len(targets)))
	for start := 0; start < len(targets); start += warmWindow {
		window := targets[start:min(start+warmWindow, len(targets))]
		clear(vals)
		if r.warms() {
			// A target whose values fail keeps nil: its render reports it.
			parallel.Each(workers, len(window), func(i int) {
				vals[i], _ = r.Fleet.TargetValues(window[i].ClusterType, window[i].Node)
			})
			batches := r.itemBatches(window, vals[:len(window)])
			parallel.Each(workers, len(batches), func(i int) { batches[i].render(r) })
		}
		parallel.Each(workers, len(window), func(i int) {
			k := start + i
			var out *Output
			if out, errs[k] = r.renderTarget(window[i], vals[i], run); errs[k] == nil {
				errs[k] = sink(k, out)
			}
			vals[i] = nil
			if progress != nil {
				progress(int(done.Add(1)), len(targets))
			}
		})
	}
	if failed := dedupe(errs); len(failed) > 0 {
		return errors.Join(failed...)
	}
	return nil
}

// dedupe keeps the distinct errors in target order (the CLI prints the
// first ones and says how many there are).
// A problem in a file that many targets share fails each of them the same
// way: it is reported once, with the number of other targets it fails.
func dedupe(errs []error) []error {
	var out []error
	index := map[string]*TargetError{}
	for _, err := range errs {
		if err == nil || errors.Is(err, errRunStopped) {
			continue // the error of the target that stopped the run says why
		}
		// A target's own error, not one wrapped in other context.
		te, ok := err.(*TargetError) //nolint:errorlint // the outermost only, as said
		if !ok {
			out = append(out, err)
			continue
		}
		key := te.Err.Error()
		if first := index[key]; first != nil {
			first.Others++
			continue
		}
		te = &TargetError{Target: te.Target, Err: te.Err}
		index[key] = te
		out = append(out, te)
	}
	return out
}
