package rollout

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/promote"
	"github.com/strata-fleet/strata/internal/record"
)

// writer makes the steps of the rollouts: RunAll's, and a rollout of its
// own as a batch of one (one write path). Each time it holds the
// repository lock it makes the step of every rollout ready at that
// moment, in patch order, each its own commit with its own message and
// trailers, and pushes them all in one push; a push refused because the
// remote moved replays them all on the new upstream (others' commits
// kept) and pushes again. A hold also takes the steps asked for while it
// runs, for Env.BatchFor at most (write). The waits of those steps start from that push.
// One write per step would serialize every patch's step behind every
// other's commit, push and render (BENCHMARKS.md, delivery).
type writer struct {
	env Env
	// shared is set for RunAll's writer: its rollouts read the work tree
	// beside it (reading) and skip a catch-up with nothing to do without
	// the lock (caughtUp). A rollout of its own reads under the lock.
	shared bool
	// mu is held by the writer while it writes the work tree; the
	// rollouts' reads that take no repository lock take it shared.
	mu sync.RWMutex

	qmu   sync.Mutex
	queue []*stepReq
	ready chan struct{}

	// fetched is RunAll's one fetch of the remote branch (caughtUp);
	// cleanAt the last HEAD it found nothing uncommitted at.
	fetched sync.Once
	cmu     sync.Mutex
	cleanAt string

	// last is the expectation at the last HEAD a wait read (expectAt).
	emu  sync.Mutex
	last *expectation
	ctx  context.Context
}

// queuedHook, set by tests only, is told of each step asked of a writer.
var queuedHook func(patch string)

// stepReq is one rollout's step, asked of the writer.
type stepReq struct {
	r    *runner
	done chan struct{}
	// Set by the writer before done is closed: the plan (nil when the
	// rollout ends here: done, a gate, --until), the step pushed, or why not.
	plan *promote.Plan
	st   *step
	err  error

	c       action.Commit
	subject string
	// back is set when a hold that ran out of time put the step back: it
	// goes first in the next (take).
	back bool
}

func newWriter(ctx context.Context, env Env) *writer {
	if env.Clock == nil {
		env.Clock = clock.RealClock{}
	}
	w := &writer{env: env, ready: make(chan struct{}, 1), ctx: ctx}
	go w.loop(ctx)
	return w
}

// step plans r's next step and, unless the rollout ends there, makes and
// pushes it with the other rollouts' steps ready at the same moment.
func (w *writer) step(ctx context.Context, r *runner) (*promote.Plan, *step, error) {
	req := &stepReq{r: r, done: make(chan struct{})}
	w.qmu.Lock()
	w.queue = append(w.queue, req)
	if queuedHook != nil {
		queuedHook(r.patchID())
	}
	w.qmu.Unlock()
	select {
	case w.ready <- struct{}{}:
	default:
	}
	select {
	case <-req.done:
		return req.plan, req.st, req.err
	case <-ctx.Done():
		w.qmu.Lock()
		i := slices.Index(w.queue, req)
		if i >= 0 {
			w.queue = slices.Delete(w.queue, i, i+1)
		}
		w.qmu.Unlock()
		if i < 0 {
			// The writer is making it: wait, so that the step is not left
			// half made behind a rollout that has gone.
			<-req.done
		}
		return nil, nil, context.Cause(ctx)
	}
}

func (w *writer) loop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			w.fail(context.Cause(ctx))
			return
		case <-w.ready:
		}
		w.write(ctx)
	}
}

// take takes the steps asked for so far, in a deterministic order: those
// a hold put back first (else a patch late in the order could wait for
// hold after hold), then by patch: the steps' commits follow their
// patches'.
func (w *writer) take() []*stepReq {
	w.qmu.Lock()
	batch := w.queue
	w.queue = nil
	w.qmu.Unlock()
	slices.SortFunc(batch, func(a, b *stepReq) int {
		if a.back != b.back {
			if a.back {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.r.patchID(), b.r.patchID())
	})
	return batch
}

// putBack returns steps taken to the front of the queue, for the next
// hold, and starts it.
func (w *writer) putBack(reqs []*stepReq) {
	if len(reqs) == 0 {
		return
	}
	w.qmu.Lock()
	for _, req := range reqs {
		req.back = true
	}
	w.queue = append(slices.Clone(reqs), w.queue...)
	w.qmu.Unlock()
	select {
	case w.ready <- struct{}{}:
	default:
	}
}

// fail ends every step still asked for with err.
func (w *writer) fail(err error) {
	w.qmu.Lock()
	defer w.qmu.Unlock()
	for _, req := range w.queue {
		req.err = err
		close(req.done)
	}
	w.queue = nil
}

// DefaultBatchFor is how long RunAll's writer goes on making steps in one
// hold of the repository lock before it pushes those made (Env.BatchFor).
const DefaultBatchFor = 2 * time.Second

// write takes the repository lock, then makes the steps asked for by
// then (those that became ready while it waited for the lock too) and
// pushes them once. Between two steps the work tree is committed: the
// rollouts' reads get in (a rollout whose step became ready plans it and
// asks for it), and the steps asked for meanwhile join the hold, until it
// has run Env.BatchFor: then the steps made are pushed, and the others
// wait for the next hold, taken at once, so that a step made early in a
// long batch does not wait for all of it.
func (w *writer) write(ctx context.Context) {
	w.qmu.Lock()
	asked := len(w.queue)
	w.qmu.Unlock()
	if asked == 0 {
		return // taken by the last write
	}
	batch, made := w.hold(ctx)
	// The steps' record is written after the hold, beside the next.
	if len(made) > 0 && recordSteps(ctx, made) == nil {
		for _, req := range made {
			if req.err == nil {
				req.r.pushed(req.st, req.subject)
			}
		}
	}
	for _, req := range batch {
		close(req.done)
	}
}

// hold is write's hold of the repository lock: the steps it took (batch)
// and those it made and pushed (made).
func (w *writer) hold(ctx context.Context) (batch, made []*stepReq) {
	release := func() {}
	var lockErr error
	if w.env.Lock != nil {
		release, lockErr = w.env.Lock(ctx)
	}
	w.mu.Lock()
	start := w.env.Clock.Now()
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
		for _, req := range batch {
			req.err = lockErr
		}
		return
	}
	repo := batch[0].r.repo
	// Others may have pushed while the steps waited: plan on theirs.
	if _, err := repo.unpushed(ctx); err != nil {
		for _, req := range batch {
			req.err = err
		}
		return
	}
	base, err := repo.head(ctx)
	if err != nil {
		for _, req := range batch {
			req.err = err
		}
		return
	}
	// What git commit would do beside the commit (hooks, signing) is read
	// once a hold, not once a step (git.Repo.Batch).
	g := repo.git.Batch()
	// One look at the uncommitted changes for the hold while it finds
	// none: a step's commit takes all it changed, and a failed one is
	// looked at (leftDirty). A hold whose first look found none leaves
	// nothing uncommitted once its steps are made (expectAfter).
	clean, beganClean := false, false
	for i := 0; i < len(batch); i++ {
		req := batch[i]
		var dirty []string
		if !clean {
			if dirty, req.err = req.r.dirty(ctx); req.err != nil {
				w.failRest(batch, req, req.err)
				break
			}
			clean = len(dirty) == 0
			beganClean = beganClean || (i == 0 && clean)
		}
		if req.plan, req.err = req.r.ready(ctx, dirty); req.err == nil && req.plan != nil {
			req.st, req.c, req.subject, req.err = req.r.makeStep(ctx, req.plan, g, false)
		}
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
		if w.env.Clock.Since(start) >= cmp.Or(w.env.BatchFor, DefaultBatchFor) {
			w.putBack(batch[i+1:])
			batch = batch[:i+1]
			break
		}
		batch = append(batch, w.take()...)
	}
	if len(made) == 0 {
		return batch, nil
	}
	if err := w.publish(ctx, repo, made, base); err != nil {
		for _, req := range made {
			if req.err == nil {
				req.err, req.st = err, nil
			}
		}
		return batch, nil
	}
	w.waitSets(ctx, repo, made, base, beganClean)
	return batch, made
}

// recordSteps records the steps of made that were pushed, in one write
// of the record; a step whose record cannot be written fails with why:
// pushed, it is not strata's own until it is recorded.
func recordSteps(ctx context.Context, made []*stepReq) error {
	var es []record.Entry
	var ok []*stepReq
	var err error
	for _, req := range made {
		if req.err != nil || req.st == nil {
			continue
		}
		var e record.Entry
		if e, err = req.r.stepEntry(ctx, req.st, record.KindStep); err != nil {
			break
		}
		es, ok = append(es, e), append(ok, req)
	}
	if err == nil && len(ok) > 0 {
		err = ok[0].r.rec().Append(ctx, es...)
	}
	if err == nil {
		return nil
	}
	err = fmt.Errorf("%w in %s: %w (the next run settles it)", errNotRecorded, record.Ref, err)
	for _, req := range made {
		if req.err == nil {
			req.err, req.st = err, nil
		}
	}
	return err
}

// caughtUp reports whether r's catch-up has nothing to do, read without
// the repository lock: no promotion's journal, HEAD at the remote branch
// (fetched once for all the rollouts), and nothing uncommitted under
// config/ or rendered/, looked at once a HEAD for all the rollouts: at
// 100,000 rendered files git status takes seconds, and a hundred
// rollouts starting together each ran it. A change made by hand since
// is found by the hold's own look before a step.
func (w *writer) caughtUp(ctx context.Context, r *runner) bool {
	w.fetched.Do(func() { _, _ = r.repo.fetch(ctx) })
	w.mu.RLock()
	defer w.mu.RUnlock()
	if pending, err := promote.Pending(r.ops); err != nil || pending != nil {
		return false
	}
	head, err := r.repo.head(ctx)
	if err != nil {
		return false
	}
	if seen, err := r.repo.run(ctx, "rev-parse", "-q", "--verify", "refs/remotes/"+r.repo.remote+"/"+r.repo.branch); err != nil || head != seen {
		return false
	}
	w.cmu.Lock()
	defer w.cmu.Unlock()
	if w.cleanAt == head {
		return true
	}
	if dirty, err := r.dirty(ctx); err != nil || len(dirty) > 0 {
		return false
	}
	w.cleanAt = head
	return true
}

// leftDirty says why the steps after req cannot be made when req's failure
// left config/ or rendered/ changed (a render that failed after the
// promotion): the next step's commit would take them along.
func (w *writer) leftDirty(ctx context.Context, req *stepReq) error {
	dirty, err := req.r.dirty(ctx)
	if err != nil {
		return err
	}
	if len(dirty) == 0 {
		return nil
	}
	return fmt.Errorf("not made: the step of %s failed and left config/ or rendered/ changed", req.r.patchID())
}

// failRest fails the steps of batch after req.
func (w *writer) failRest(batch []*stepReq, req *stepReq, err error) {
	for _, o := range batch[slices.Index(batch, req)+1:] {
		o.err = err
	}
}

// expectAt is the expectation at HEAD, read once for all the rollouts
// that wait after one push or settle the same commit; the caller reads
// beside the writer (reading) or is the writer, so the work tree holds
// still. At 1,000 x 100 each of 100 rollouts settling at start read the
// whole fleet's expected objects itself: 2.2 GB, and no commit in 7
// minutes (BENCHMARKS.md, delivery).
func (w *writer) expectAt(ctx context.Context, r *runner) (*expectation, error) {
	head, err := r.repo.head(ctx)
	if err != nil {
		return nil, err
	}
	w.emu.Lock()
	defer w.emu.Unlock()
	if w.last != nil && w.last.head == head {
		return w.last, nil
	}
	e, err := readExpectation(r.fsys, w.env.Dir)
	if err != nil {
		return nil, err
	}
	repo := r.repo
	e.history.Fetch = func(string) error {
		_, err := repo.fetch(w.ctx)
		return err
	}
	w.last = e
	return e, nil
}
