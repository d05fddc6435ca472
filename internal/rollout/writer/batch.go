package writer

import (
	"cmp"
	"context"
	"time"

	"k8s.io/utils/clock"
)

// New starts a writer, until ctx ends.
func New(ctx context.Context, opts Options) *Writer {
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	w := &Writer{opts: opts, ready: make(chan struct{}, 1), ctx: ctx}
	go w.serve(ctx)
	return w
}

// serve makes the steps asked for, a hold at a time, until ctx ends.
func (w *Writer) serve(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			w.fail(context.Cause(ctx))
			return
		case <-w.ready:
		}
		w.flush(ctx)
	}
}

// flush takes the repository lock, makes the steps asked for and pushes
// them once. Between two steps the rollouts' reads get in and the steps
// asked meanwhile join, for Options.BatchFor; the rest go to the next
// hold, taken at once.
func (w *Writer) flush(ctx context.Context) {
	w.qmu.Lock()
	asked := len(w.queue)
	w.qmu.Unlock()
	if asked == 0 {
		return // taken by the last write
	}
	batch, made := w.holdLock(ctx)
	// The steps' record is written after the hold, beside the next.
	if len(made) > 0 && recordSteps(ctx, made) == nil {
		for _, req := range made {
			if req.err == nil {
				req.r.Pushed(req.st)
			}
		}
	}
	for _, req := range batch {
		close(req.done)
	}
}

// holdLock is flush's hold of the lock: the steps it took and those it
// made and pushed.
func (w *Writer) holdLock(ctx context.Context) (batch, made []*req) {
	release := func() {}
	var lockErr error
	if w.opts.Lock != nil {
		release, lockErr = w.opts.Lock(ctx)
	}
	w.mu.Lock()
	start := w.opts.Clock.Now()
	batch = w.take()
	defer func() {
		w.mu.Unlock()
		if lockErr == nil {
			release()
		}
	}()
	if len(batch) == 0 {
		return
	}
	if lockErr != nil {
		failAll(batch, lockErr)
		return
	}
	repo := batch[0].r.Repo()
	// Others may have pushed while the steps waited: plan on theirs.
	if _, err := repo.Unpushed(ctx); err != nil {
		failAll(batch, err)
		return
	}
	base, err := repo.Git.Head(ctx)
	if err != nil {
		failAll(batch, err)
		return
	}
	batch, made, beganClean := w.makeSteps(ctx, batch, repo, start)
	if len(made) == 0 {
		return batch, nil
	}
	if err := w.publish(ctx, repo, made, base); err != nil {
		failAll(made, err)
		return batch, nil
	}
	w.expectAll(ctx, repo, made, base, beganClean)
	return batch, made
}

// makeSteps makes the steps of batch and of those asked meanwhile until
// Options.BatchFor since start (the rest put back): the steps taken and
// made, and whether the work tree was clean before the first.
func (w *Writer) makeSteps(ctx context.Context, batch []*req, repo *Repo, start time.Time) (taken, made []*req, beganClean bool) {
	g := repo.Git.Batch() // hooks and signing read once a hold
	// The uncommitted changes are looked at until a look finds none: a
	// step's commit takes all it changed (a failed one: leftDirty).
	clean := false
	for i := 0; i < len(batch); i++ {
		req := batch[i]
		var dirty []string
		if !clean {
			if dirty, req.err = req.r.Dirty(ctx); req.err != nil {
				w.failRest(batch, req, req.err)
				break
			}
			clean = len(dirty) == 0
			beganClean = beganClean || (i == 0 && clean)
		}
		req.st, req.err = req.r.Make(ctx, dirty, g)
		if req.err != nil {
			req.st = nil
			if stop := w.leftDirty(ctx, req); stop != nil {
				w.failRest(batch, req, stop)
				break
			}
		} else if req.st != nil {
			made = append(made, req)
		}
		w.mu.Unlock() // the reads waiting get in
		w.mu.Lock()
		if w.opts.Clock.Since(start) >= cmp.Or(w.opts.BatchFor, DefaultBatchFor) {
			w.putBack(batch[i+1:])
			batch = batch[:i+1]
			break
		}
		batch = append(batch, w.take()...)
	}
	return batch, made, beganClean
}
