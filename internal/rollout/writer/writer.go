package writer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/promote"
	"github.com/strata-fleet/strata/internal/record"
)

// Rollout is one rollout as the writer makes its steps: package rollout's
// runner.
type Rollout interface {
	// ID is <type>/<component>/<patch>; a hold makes its steps in ID
	// order.
	ID() string
	// Repo is where its steps are committed and pushed.
	Repo() *Repo
	// FS is its work tree; OutputRoot the directory of the rendered tree
	// there.
	FS() fs.FS
	OutputRoot() (string, error)
	// Dirty lists the uncommitted changes under config/ and the rendered
	// tree.
	Dirty(ctx context.Context) ([]string, error)
	// Make plans the rollout's next step on the work tree and makes it,
	// committed with g, unpushed; nil when the rollout ends here. dirty
	// are Dirty's changes, nil when the hold found none before.
	Make(ctx context.Context, dirty []string, g git.Repo) (*Step, error)
	// Remake makes st again on HEAD, reset to upstream (a push refused:
	// the remote moved from base), updating its commit and subject.
	Remake(ctx context.Context, st *Step, base, upstream string) error
	// Entry is the record of st, pushed; Record where it is written.
	Entry(ctx context.Context, st *Step) (record.Entry, error)
	Record() *record.Log
	// Pushed tells the rollout that st is pushed and recorded.
	Pushed(st *Step)
}

// Step is a step the writer made and pushed: its commit, and what its
// wait starts from.
type Step struct {
	Commit  string
	Subject string
	// Dirs are the rendered directories the step's config can change
	// (promote.Plan.RenderedDirs); nil when not known: the expectation
	// after the push is then read whole.
	Dirs []string
	// Expect, Pick and Mark, set after the push (nil Expect when it could
	// not be read: the rollout reads its own), are what its wait joins:
	// what the rendered output expects at HEAD, the objects of the step,
	// and where the refreshes asked stood right after the push
	// (Options.Mark).
	Expect *Expectation
	Pick   func(live.AppState) bool
	Mark   uint64
}

// ErrNotRecorded wraps a step pushed whose record could not be written.
var ErrNotRecorded = errors.New("the step is pushed but not recorded")

// Writer makes the steps of the rollouts: RunAll's, and a rollout of its
// own as a batch of one (one write path). Each time it holds the
// repository lock it makes the step of every rollout ready at that
// moment, in patch order, each its own commit with its own message and
// trailers, and pushes them all in one push; a push refused because the
// remote moved replays them all on the new upstream (others' commits
// kept) and pushes again. A hold also takes the steps asked for while it
// runs, for Options.BatchFor at most (batch.go). The waits of those
// steps start from that push.
// One write per step would serialize every patch's step behind every
// other's commit, push and render (BENCHMARKS.md, delivery).
type Writer struct {
	opts Options
	// shared is set for RunAll's writer: its rollouts read the work tree
	// beside it (Beside) and skip a catch-up with nothing to do without
	// the lock (CaughtUp). A rollout of its own reads under the lock.
	shared bool
	// mu is held by the writer while it writes the work tree; the
	// rollouts' reads that take no repository lock take it shared.
	mu sync.RWMutex

	qmu   sync.Mutex
	queue []*req
	ready chan struct{}

	// fetched is RunAll's one fetch of the remote branch (CaughtUp);
	// cleanAt the last HEAD it found nothing uncommitted at.
	fetched sync.Once
	cmu     sync.Mutex
	cleanAt string

	// last is the expectation at the last HEAD a wait read (ExpectAt).
	emu  sync.Mutex
	last *Expectation
	ctx  context.Context
}

// Options are what a Writer works with.
type Options struct {
	// Dir is the fleet repository's work tree.
	Dir   string
	Clock clock.WithTicker
	// Lock, when set, takes the repository's lock for one hold and returns
	// its release (rollout.Env.Lock).
	Lock func(context.Context) (release func(), err error)
	// BatchFor is how long a hold goes on making the steps ready before it
	// pushes them (default DefaultBatchFor); PushBackoff the wait before
	// the first replay on a remote that moved (default DefaultPushBackoff).
	BatchFor, PushBackoff time.Duration
	// Shared: the writer of RunAll's rollouts (Shared).
	Shared bool
	// Mark, when set, is read right after a push: where the refreshes
	// asked stand (livecache.Cache.Mark), for Step.Mark.
	Mark func() uint64
}

// QueuedHook, set by tests only, is told of each step asked of a writer.
var QueuedHook func(patch string)

// req is one rollout's step, asked of the writer.
type req struct {
	r    Rollout
	done chan struct{}
	// Set by the writer before done is closed: the step pushed (nil when
	// the rollout ends here: done, a gate, --until), or why not.
	st  *Step
	err error
	// back is set when a hold that ran out of time put the step back: it
	// goes first in the next (take).
	back bool
}

// Shared reports whether it is the writer of RunAll's rollouts.
func (w *Writer) Shared() bool { return w.shared }

// Beside runs read, which reads the work tree and writes nothing, while
// the writer does not write it.
func (w *Writer) Beside(read func() error) error {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return read()
}

// Step plans r's next step and, unless the rollout ends there (nil),
// makes and pushes it with the other rollouts' steps ready at the same
// moment.
func (w *Writer) Step(ctx context.Context, r Rollout) (*Step, error) {
	req := &req{r: r, done: make(chan struct{})}
	w.qmu.Lock()
	w.queue = append(w.queue, req)
	if QueuedHook != nil {
		QueuedHook(r.ID())
	}
	w.qmu.Unlock()
	select {
	case w.ready <- struct{}{}:
	default:
	}
	select {
	case <-req.done:
		return req.st, req.err
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
		return nil, context.Cause(ctx)
	}
}

// take takes the steps asked for so far, in a deterministic order: those
// a hold put back first (else a patch late in the order could wait for
// hold after hold), then by patch: the steps' commits follow their
// patches'.
func (w *Writer) take() []*req {
	w.qmu.Lock()
	batch := w.queue
	w.queue = nil
	w.qmu.Unlock()
	slices.SortFunc(batch, func(a, b *req) int {
		if a.back != b.back {
			if a.back {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.r.ID(), b.r.ID())
	})
	return batch
}

// putBack returns steps taken to the front of the queue, for the next
// hold, and starts it.
func (w *Writer) putBack(reqs []*req) {
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
func (w *Writer) fail(err error) {
	w.qmu.Lock()
	defer w.qmu.Unlock()
	for _, req := range w.queue {
		req.err = err
		close(req.done)
	}
	w.queue = nil
}

// DefaultBatchFor is how long RunAll's writer goes on making steps in one
// hold of the repository lock before it pushes those made
// (Options.BatchFor).
const DefaultBatchFor = 2 * time.Second

// failAll fails with err the steps of reqs that have not failed yet, and
// drops what they made.
func failAll(reqs []*req, err error) {
	for _, req := range reqs {
		if req.err == nil {
			req.err, req.st = err, nil
		}
	}
}

// recordSteps records the steps of made that were pushed, in one write
// of the record; a step whose record cannot be written fails with why:
// pushed, it is not strata's own until it is recorded.
func recordSteps(ctx context.Context, made []*req) error {
	var es []record.Entry
	var ok []*req
	var err error
	for _, req := range made {
		if req.err != nil || req.st == nil {
			continue
		}
		var e record.Entry
		if e, err = req.r.Entry(ctx, req.st); err != nil {
			break
		}
		es, ok = append(es, e), append(ok, req)
	}
	if err == nil && len(ok) > 0 {
		err = ok[0].r.Record().Append(ctx, es...)
	}
	if err == nil {
		return nil
	}
	err = fmt.Errorf("%w in %s: %w (the next run settles it)", ErrNotRecorded, record.Ref, err)
	failAll(made, err)
	return err
}

// CaughtUp reports whether r's catch-up has nothing to do, read without
// the repository lock: no promotion's journal in ops, HEAD at the remote
// branch (fetched once for all the rollouts), and nothing uncommitted
// under config/ or rendered/, looked at once a HEAD for all the
// rollouts: at 100,000 rendered files git status takes seconds, and a
// hundred rollouts starting together each ran it. A change made by hand
// since is found by the hold's own look before a step.
func (w *Writer) CaughtUp(ctx context.Context, r Rollout, ops promote.DirOps) bool {
	repo := r.Repo()
	w.fetched.Do(func() { _, _ = repo.Fetch(ctx) })
	w.mu.RLock()
	defer w.mu.RUnlock()
	if pending, err := promote.Pending(ops); err != nil || pending != nil {
		return false
	}
	head, err := repo.Head(ctx)
	if err != nil {
		return false
	}
	if seen, err := repo.Run(ctx, "rev-parse", "-q", "--verify", "refs/remotes/"+repo.Remote+"/"+repo.Branch); err != nil || head != seen {
		return false
	}
	w.cmu.Lock()
	defer w.cmu.Unlock()
	if w.cleanAt == head {
		return true
	}
	if dirty, err := r.Dirty(ctx); err != nil || len(dirty) > 0 {
		return false
	}
	w.cleanAt = head
	return true
}

// leftDirty says why the steps after req cannot be made when req's failure
// left config/ or rendered/ changed (a render that failed after the
// promotion): the next step's commit would take them along.
func (w *Writer) leftDirty(ctx context.Context, req *req) error {
	dirty, err := req.r.Dirty(ctx)
	if err != nil {
		return err
	}
	if len(dirty) == 0 {
		return nil
	}
	return fmt.Errorf("not made: the step of %s failed and left config/ or rendered/ changed", req.r.ID())
}

// failRest fails the steps of batch after req.
func (w *Writer) failRest(batch []*req, req *req, err error) {
	for _, o := range batch[slices.Index(batch, req)+1:] {
		o.err = err
	}
}
