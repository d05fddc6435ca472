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
	return r.RenderStream(targets, progress, nil)
}

// RenderStream is RenderAll that also hands each output, as soon as it is
// rendered, to sink (called from the rendering goroutines). An error from
// sink fails that target.
func (r *Renderer) RenderStream(targets []Target, progress func(done, total int), sink func(*Output) error) ([]*Output, error) {
	outs := make([]*Output, len(targets))
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
				outs[i], errs[i] = r.Render(targets[i])
				if errs[i] == nil && sink != nil {
					errs[i] = sink(outs[i])
				}
				if progress != nil {
					progress(int(done.Add(1)), len(targets))
				}
			}
		}()
	}
	wg.Wait()
	if failed := dedupe(errs); len(failed) > 0 {
		return nil, errors.Join(failed...)
	}
	return outs, nil
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
