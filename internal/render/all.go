package render

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
)

// maxTargetErrors bounds how many failing targets one run reports.
const maxTargetErrors = 10

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
// returned as RenderAll returns them.
func (r *Renderer) RenderStream(targets []Target, progress func(done, total int), sink func(i int, o *Output) error) error {
	errs := make([]error, len(targets))
	var next, done atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(targets)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(targets) {
					return
				}
				var out *Output
				if out, errs[i] = r.Render(targets[i]); errs[i] == nil {
					errs[i] = sink(i, out)
				}
				if progress != nil {
					progress(int(done.Add(1)), len(targets))
				}
			}
		}()
	}
	wg.Wait()
	if failed := dedupe(errs); len(failed) > 0 {
		return errors.Join(failed...)
	}
	return nil
}

// dedupe keeps the first maxTargetErrors distinct errors in target order.
// A problem in a file that many targets share fails each of them the same
// way: it is reported once, with the number of other targets it fails.
func dedupe(errs []error) []error {
	var out []error
	index := map[string]*TargetError{}
	for _, err := range errs {
		if err == nil {
			continue
		}
		te, ok := err.(*TargetError)
		if !ok {
			if len(out) < maxTargetErrors {
				out = append(out, err)
			}
			continue
		}
		key := te.Err.Error()
		if first := index[key]; first != nil {
			first.Others++
			continue
		}
		if len(out) < maxTargetErrors {
			te := &TargetError{Target: te.Target, Err: te.Err}
			index[key] = te
			out = append(out, te)
		}
	}
	return out
}
