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
	// ID is <type>/<component>/<patch>, the order of a hold's steps.
	ID() string
	Repo() *Repo
	// FS is its work tree, OutputRoot the rendered tree's directory, Dirty
	// the uncommitted changes under config/ and there.
	FS() fs.FS
	OutputRoot() (string, error)
	Dirty(ctx context.Context) ([]string, error)
	// Make plans the next step and commits it with g, unpushed; nil when
	// the rollout ends here. dirty are Dirty's changes (nil: none).
	Make(ctx context.Context, dirty []string, g git.Repo) (*Step, error)
	// Remake makes st again on HEAD, reset to upstream (the remote moved
	// from base), updating its commit and subject.
	Remake(ctx context.Context, st *Step, base, upstream string) error
	// Entry is the record of st, pushed, and Record where it goes.
	Entry(ctx context.Context, st *Step) (record.Entry, error)
	Record() *record.Log
	// Pushed tells the rollout that st is pushed and recorded.
	Pushed(st *Step)
}

// Step is a step the writer made and pushed.
type Step struct {
	Commit  string
	Subject string
	// Dirs are the rendered directories the step can change
	// (promote.Plan.RenderedDirs); nil: the expectation is read whole.
	Dirs []string
	// Expect, Pick and Mark, set after the push, are what its wait joins:
	// the expectation at HEAD (nil: the rollout reads its own), the
	// step's objects, where the refreshes asked stood (Options.Mark).
	Expect *Expectation
	Pick   func(live.AppState) bool
	Mark   uint64
}

// ErrNotRecorded wraps a step pushed whose record could not be written.
var ErrNotRecorded = errors.New("the step is pushed but not recorded")

// Writer makes the steps of the rollouts (RunAll's, or one rollout's as a
// batch of one): each hold of the repository lock makes the step of every
// rollout ready then, and of those ready within Options.BatchFor, in
// patch order, each its own commit, and pushes them in one push, replayed
// on a moved remote (push.go). One write per step would serialize every
// patch behind every other's (BENCHMARKS.md, delivery).
type Writer struct {
	opts Options
	// mu is held while the writer writes the work tree; reads that take
	// no repository lock take it shared.
	mu sync.RWMutex

	qmu   sync.Mutex
	queue []*req
	ready chan struct{}

	// fetched is RunAll's one fetch (CaughtUp); cleanAt the last HEAD
	// with nothing uncommitted.
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
	// Lock takes the repository's lock for one hold (rollout.Env.Lock).
	Lock func(context.Context) (release func(), err error)
	// BatchFor and PushBackoff: see rollout.Env.
	BatchFor, PushBackoff time.Duration
	Shared                bool // RunAll's writer
	// Mark, read right after a push, is where the refreshes asked stand
	// (livecache.Cache.Mark), for Step.Mark.
	Mark func() uint64
}

// QueuedHook, set by tests only, is told of each step asked of a writer.
var QueuedHook func(patch string)

// req is one rollout's step, asked of the writer.
type req struct {
	r    Rollout
	done chan struct{}
	// st is the step pushed (nil: the rollout ends here), or err why not;
	// set before done is closed.
	st  *Step
	err error
	// back: a hold that ran out of time put it back; it goes first.
	back bool
}

// Shared reports whether it is RunAll's writer: its rollouts read beside
// it (Beside) and skip a catch-up with nothing to do (CaughtUp).
func (w *Writer) Shared() bool { return w.opts.Shared }

// Beside runs read, which reads the work tree and writes nothing, while
// the writer does not write it.
func (w *Writer) Beside(read func() error) error {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return read()
}

// Step makes and pushes r's next step with the other rollouts' steps
// ready then; nil when the rollout ends there.
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
			<-req.done // being made: not left half made
		}
		return nil, context.Cause(ctx)
	}
}

// take takes the steps asked for so far: those a hold put back first (or
// a patch late in the order could wait hold after hold), then by patch.
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

// putBack puts steps taken in front of the queue and starts the next hold.
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

// DefaultBatchFor is Options.BatchFor's default.
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

// recordSteps records the steps of made that were pushed, in one write; a
// step whose record cannot be written fails (not strata's own until then).
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

// CaughtUp reports, without the repository lock, whether r's catch-up has
// nothing to do: no promotion's journal, HEAD at the remote branch
// (fetched once for all), nothing uncommitted (looked at once a HEAD for
// all: git status takes seconds at 100,000 rendered files).
func (w *Writer) CaughtUp(ctx context.Context, r Rollout, ops promote.DirOps) bool {
	repo := r.Repo()
	w.fetched.Do(func() { _, _ = repo.Fetch(ctx) })
	w.mu.RLock()
	defer w.mu.RUnlock()
	if pending, err := promote.Pending(ops); err != nil || pending != nil {
		return false
	}
	head, err := repo.Git.Head(ctx)
	if err != nil {
		return false
	}
	if seen, err := repo.Git.Out(ctx, "rev-parse", "-q", "--verify", "refs/remotes/"+repo.Remote+"/"+repo.Branch); err != nil || head != seen {
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

// leftDirty stops the steps after req when its failure left config/ or
// rendered/ changed: the next commit would take them along.
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
