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
				if progress != nil {
					progress(int(done.Add(1)), len(targets))
				}
			}
		}()
	}
	wg.Wait()
	var failed []error
	for _, err := range errs {
		if err != nil && len(failed) < maxTargetErrors {
			failed = append(failed, err)
		}
	}
	if len(failed) > 0 {
		return nil, errors.Join(failed...)
	}
	return outs, nil
}
