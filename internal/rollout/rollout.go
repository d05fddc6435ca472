package rollout

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/hint"
	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/promote"
	"github.com/strata-fleet/strata/internal/record"
	"github.com/strata-fleet/strata/internal/rollout/inflight"
	"github.com/strata-fleet/strata/internal/rollout/livecache"
	"github.com/strata-fleet/strata/internal/rollout/writer"
	"github.com/strata-fleet/strata/internal/suggest"
)

// Options say what to roll out, and how.
type Options struct {
	ClusterType, Component, Patch string
	// Level is promote's --level ("" for its default).
	Level string
	// Approve are the manual gates (node IDs) this run may enter;
	// Approver is who approves ("Name <email>"), recorded with it.
	Approve  []string
	Approver string
	// Until stops the rollout once every target under this node has the
	// patch.
	Until string
	// DryRun lists the steps and changes nothing.
	DryRun bool
	// Soak and Timeout, when set, replace the configured ones.
	Soak, Timeout *time.Duration
	// Runner, when set, adds a runner's own stopWhen conditions and checks
	// to every node's (--rollout-config, fleet.RunnerRollout).
	Runner *fleet.RunnerRollout
	// Revert reverts a failed step (--on-failure revert).
	Revert bool
	// Remote is where the steps are pushed ("" for the branch's upstream).
	Remote string
	// Once does what can be done now and returns (--once): each wait,
	// soak or hold that is not over ends the run (Result.Stopped
	// StoppedPending, once.go).
	Once bool
	// RerunChecks runs every check of a step again rather than reusing
	// what strata's record says passed for it (--rerun-checks).
	RerunChecks bool
	// Args, when set, are the arguments of the strata command that started
	// the run: the command that continues past a gate repeats them all
	// (--remote, --kubeconfig, contexts, soak, timeout...) and adds the
	// approvals, so that it works when pasted as printed.
	Args []string
}

// Env is what a rollout works with; tests give their own.
type Env struct {
	// Dir is the fleet repository's work tree.
	Dir string
	Git git.Runner
	// Connect reaches the API server of a cluster of the inventory that
	// runs Argo CD (live.Kubeconfig.Connect); Live says where Argo CD's
	// objects are there.
	Connect live.Connect
	Live    live.Options
	Clock   clock.WithTicker
	// Events receives what happens, as it happens (nil: nothing).
	Events func(Event)
	// RefreshEvery is how often the roots that have not deployed a step
	// yet are asked for a refresh (default DefaultRefreshEvery; livecache/refresh.go).
	RefreshEvery time.Duration
	Log          *slog.Logger
	// PushBackoff is the wait before a step is replayed on a remote that
	// moved, doubled for each further replay (default DefaultPushBackoff).
	PushBackoff time.Duration
	// Lock, when set, takes the repository's lock (package lock) for one
	// write: the catch-up, a step (plan, promote, render, commit, push),
	// a revert. It returns the lock's release. The rollout never holds it
	// while it waits or soaks, so that other patches move meanwhile.
	Lock func(context.Context) (release func(), err error)
	// Hold, when set, takes the lock of one patch's rollout (patch is
	// <type>/<component>/<patch>) for RunAll's run of it.
	Hold func(ctx context.Context, patch string) (release func(), err error)
	// HoldEvery is how often a held rollout reads the freezes and the
	// stopWhen conditions again (default DefaultHoldEvery).
	HoldEvery time.Duration
	// BatchFor is how long RunAll's writer goes on making the steps ready
	// in one hold of the repository lock before it pushes them (default
	// DefaultBatchFor).
	BatchFor time.Duration
}

// shared is what RunAll's rollouts share: one cache of the Argo CDs' live
// state, one writer, and the slots that bound how many of them load the
// fleet at once (slot). A rollout of its own has a cache and a writer of
// its own, and no slots.
type shared struct {
	cache  *livecache.Cache
	writer *writer.Writer
	loads  chan struct{}
}

// newShared is a cache and a writer for the rollouts of env: RunAll's
// (all), shared, or a rollout's own.
func newShared(ctx context.Context, env Env, all bool) *shared {
	cache := livecache.New(ctx, env.Connect, env.Live)
	w := writer.New(ctx, writer.Options{Dir: env.Dir, Clock: env.Clock, Lock: env.Lock, BatchFor: env.BatchFor,
		PushBackoff: env.PushBackoff, Shared: all, Mark: cache.Mark})
	return &shared{cache: cache, writer: w}
}

// countReactions, set by the tests, counts what wakes the waits.
var countReactions *livecache.Reactions

// Result is how a rollout ended.
type Result struct {
	// Steps are the commits of the steps this run made.
	Steps []string `json:"steps"`
	// Stopped says why it ended: "done" (the patch is folded into
	// values.yaml), "until" (--until reached), "gate" (a manual gate).
	Stopped string `json:"stopped"`
	// Gates and Command, when stopped at a gate: the gates and the command
	// that continues.
	Gates   []string `json:"gates,omitempty"`
	Command string   `json:"command,omitempty"`
	// Next is Command as data when the rollout made it (no Options.Args:
	// a run of RunAll), for the caller to add what it ran with (--root).
	Next hint.Command `json:"-"`
	// Step and Waiting, when a --once run stopped in progress: the node
	// of the step it waits for, and what for.
	Step    string `json:"step,omitempty"`
	Waiting string `json:"waiting,omitempty"`
}

// Stop reasons of a Result.
const (
	StoppedDone  = "done"
	StoppedUntil = "until"
	StoppedGate  = "gate"
	// StoppedPending: a --once run stopped at a wait that is not over
	// (the step's Applications, its soak, a freeze or stopWhen).
	StoppedPending = "in-progress"
)

// runner is one rollout.
type runner struct {
	// waves are the nodes of each wave step, by its first (events.go).
	waves map[string][]string
	env   Env
	opts  Options
	repo  *writer.Repo
	watch *livecache.View
	fsys  fs.FS
	// hide are the other patches' first copies the steps leave out
	// (checkClean; firstcopies.go).
	hide []string
	// ownFirst are the patch's own first copies, uncommitted (checkClean),
	// and renderedDirty says rendered/ had uncommitted changes then.
	ownFirst      []string
	renderedDirty bool
	// startedUnrendered says the run committed the render of the patch's
	// first copy, committed without it (settle).
	startedUnrendered bool
	ops               promote.DirOps
	res               *Result
	// reverting is set while the rollout waits for a revert.
	reverting bool
	// budget is the failure budget of the step being verified (nil for
	// none); unhealthy the Strata-Unhealthy trailers of the clusters the
	// last step left unhealthy within it, for the next step's commit.
	budget    *budget
	unhealthy []string
	// reached is set once reach has read every Argo CD.
	reached bool
	// emitMu serializes events: the watcher reports a lost Argo CD from
	// its own goroutine.
	emitMu sync.Mutex
	// alarm fails the wait or soak it interrupts: a stopWhen condition
	// held (see guard); nil when no guard runs.
	alarm chan error
	// writer makes and pushes the steps: RunAll's, shared, or one of the
	// rollout's own; making is the step it makes (Make, step.go);
	// loads are RunAll's load slots (nil: none).
	writer *writer.Writer
	making *step
	loads  chan struct{}
	// config is config.yaml as outputRoot last parsed it.
	config atomic.Pointer[fleet.Config]
	// verified are the patch's files (record.FilesOf) where this run last
	// saw it pass, settled or stepped ("" before): a step is taken only
	// from there (ready, errMoved).
	verified string
}

// errMoved is a step not taken: the patch is no longer where this run saw
// it pass (another run, CI's --once beside a --watch, took a step of it
// meanwhile, or a person changed it). The run settles where it stands
// now (its Applications, soak and checks) before it steps on.
var errMoved = errors.New("the patch moved since this run saw it pass")

// configNow returns config.yaml as it is now, parsing it again only when
// it changed since the last call.
func (r *runner) configNow() (*fleet.Config, error) {
	cfg, err := fleet.ReadConfig(r.fsys, r.config.Load())
	if err != nil {
		return nil, err
	}
	r.config.Store(cfg)
	return cfg, nil
}

// OutputRoot returns the directory of the fleet's rendered tree, where
// config.yaml's layout puts it (fleet.Config.OutputRoot).
func (r *runner) OutputRoot() (string, error) {
	cfg, err := r.configNow()
	if err != nil {
		return "", err
	}
	return cfg.OutputRoot(), nil
}

// Dirty lists the uncommitted changes under config/ and the rendered tree.
func (r *runner) Dirty(ctx context.Context) ([]string, error) {
	root, err := r.OutputRoot()
	if err != nil {
		return nil, err
	}
	return r.repo.Git.Dirty(ctx, "config", root)
}

// Run rolls the patch out: it completes what an earlier run left (an
// interrupted promotion, the patch's uncommitted first copy, unpushed
// commits), waits until the targets that have the patch are healthy, then
// promotes it step by step, each step committed, pushed, waited for,
// soaked and checked, until the patch is folded into values.yaml, a manual
// gate that is not approved, opts.Until, or a failure (*StepError).
func Run(ctx context.Context, env Env, opts Options) (*Result, error) {
	return run(ctx, env, opts, nil)
}

// run is Run, sharing sh with the other rollouts of RunAll (nil: none).
func run(ctx context.Context, env Env, opts Options, sh *shared) (*Result, error) {
	if env.Clock == nil {
		env.Clock = clock.RealClock{}
	}
	if env.Log == nil {
		env.Log = slog.New(slog.DiscardHandler)
	}
	ar, err := action.Open(env.Dir)
	if err != nil {
		return nil, err
	}
	defer ar.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ops, err := promote.NewDirOps(env.Dir)
	if err != nil {
		return nil, err
	}
	if sh == nil {
		// One write path: a rollout of its own runs as RunAll's batch of one.
		sh = newShared(ctx, env, false)
	}
	r := &runner{env: env, opts: opts, repo: &writer.Repo{Git: git.Repo{Git: env.Git}, Dir: env.Dir}, fsys: ar.FS, ops: ops, res: &Result{Steps: []string{}},
		writer: sh.writer, loads: sh.loads}
	r.watch = sh.cache.Open(r.lost, countReactions)
	defer r.watch.Close()
	err = r.run(ctx)
	var p *pendingError
	if errors.As(err, &p) {
		r.res.Stopped, r.res.Step, r.res.Waiting = StoppedPending, p.step, p.waiting
		r.emit(Event{Kind: KindPending, Step: p.step, Commit: p.commit, Message: "in progress: " + p.waiting})
		return r.res, nil
	}
	var se *StepError
	if err != nil && !errors.As(err, &se) && ctx.Err() == nil {
		r.emit(Event{Kind: KindError, Message: err.Error()})
	}
	return r.res, err
}

func (r *runner) emit(e Event) {
	r.emitMu.Lock()
	defer r.emitMu.Unlock()
	if e.Time.IsZero() {
		e.Time = r.env.Clock.Now()
	}
	r.withWave(&e)
	if r.env.Events != nil {
		r.env.Events(e)
	}
}

func (r *runner) log(format string, args ...any) { r.env.Log.Warn(fmt.Sprintf(format, args...)) }

// load loads what the rollout works on: the component of the cluster type
// (the whole fleet when either does not exist, so that the error can list
// the valid choices).
func (r *runner) load() (*fleet.Fleet, error) {
	defer r.slot()()
	return action.LoadComponent(r.fsys, r.opts.ClusterType, r.opts.Component)
}

// slot waits for one of RunAll's load slots (shared.loads) and returns its
// release. Every rollout of RunAll loads the fleet when it starts (load,
// reach); a hundred loads of a fleet of 1,000 clusters at once held
// hundreds of MB of parsed files together, more than the rest of the run
// (BENCHMARKS.md, delivery), where on a few cores they take no longer one
// after another.
func (r *runner) slot() func() {
	l := r.loads
	if l == nil {
		return func() {}
	}
	l <- struct{}{}
	return func() { <-l }
}

func (r *runner) run(ctx context.Context) error {
	f, err := r.load()
	if err != nil {
		return err
	}
	if err := r.checkOptions(f); err != nil {
		return err
	}
	if r.opts.DryRun {
		return r.dryRun(ctx, f)
	}
	if ended, err := r.resume(ctx, f); ended || err != nil {
		return err
	}
	for {
		if ended, err := r.nextStep(ctx); ended || err != nil {
			return err
		}
	}
}

// resume checks the rollout can go on, then completes what an earlier run
// left (catchUp) and waits for where the patch already is (settle, or
// gone when its last step removed its files: then ended).
func (r *runner) resume(ctx context.Context, f *fleet.Fleet) (ended bool, err error) {
	if err := r.repo.PushTarget(ctx, r.opts.Remote); err != nil {
		return false, err
	}
	if locs := r.locations(f); len(locs) > 0 {
		if err := r.watchable(f, locs[len(locs)-1], locs); err != nil {
			return false, err
		}
	}
	if err := r.checkGap(f); err != nil {
		return false, err
	}
	head, _ := r.repo.Head(ctx)
	if err := r.catchUpLocked(ctx); err != nil {
		return false, err
	}
	if now, _ := r.repo.Head(ctx); now != head {
		// The catch-up brought the clone to the remote's commits: another
		// writer (a runner beside CI's --once) may have stepped or folded
		// the patch meanwhile, which is what the rollout goes on from.
		var err error
		if f, err = r.load(); err != nil {
			return false, err
		}
	}
	if len(r.locations(f)) == 0 {
		// The rollout's last step removed the patch's files (gone.go).
		if ok, err := r.gone(ctx); ok || err != nil {
			return true, err
		}
	}
	return false, r.settle(ctx)
}

// nextStep takes the next step: planned, held by freezes and stopWhen,
// made and pushed by the writer, verified; ended when the rollout ends
// there.
func (r *runner) nextStep(ctx context.Context) (ended bool, err error) {
	// A freeze or a stopWhen condition may hold the next step for hours:
	// the rollout waits for them without the lock, then plans again
	// under it (the remote may have moved meanwhile).
	var plan *promote.Plan
	var f *fleet.Fleet
	err = r.reading(ctx, func() error {
		var err error
		if f, err = r.load(); err != nil {
			return err
		}
		if len(r.locations(f)) == 0 {
			return errMoved // another run's step removed its files
		}
		plan, err = r.next(f)
		return err
	})
	if errors.Is(err, errMoved) {
		return r.resettle(ctx)
	}
	if err != nil || plan == nil {
		return true, err
	}
	if err := r.hold(ctx, f, plan.Target); err != nil {
		return true, err
	}
	made, err := r.writer.Step(ctx, r)
	if errors.Is(err, errMoved) {
		return r.resettle(ctx)
	}
	if err != nil || made == nil {
		return true, err
	}
	st := r.making
	if err := r.verify(ctx, st); err != nil {
		return true, r.failed(ctx, st, err)
	}
	r.passedAt(ctx, st.commit)
	if plan := st.plan; plan.Integrated != "" {
		r.done(StoppedDone, "", r.opts.Patch+" is rolled out and folded into "+plan.Integrated, "")
		return true, nil
	}
	return false, nil
}

// resettle settles where the patch stands now that another run (CI's
// --once beside a --watch, or the other way round) moved it: ended when
// that run's step removed its files (its fold, its revert of the first
// step), which is settled as the patch's last step (gone); else the
// rollout goes on from there.
func (r *runner) resettle(ctx context.Context) (ended bool, err error) {
	var locs []string
	if err := r.reading(ctx, func() error {
		f, err := r.load()
		locs = r.locations(f)
		return err
	}); err != nil {
		return true, err
	}
	if len(locs) == 0 {
		if ok, err := r.gone(ctx); ok || err != nil {
			return true, err
		}
		// The other run pushes its record after its step: not here yet.
		last, _ := r.repo.Run(ctx, "log", "-1", "--format=%H", "--", inflight.PatchFiles(r.opts.ClusterType, r.opts.Component, r.opts.Patch))
		msg := fmt.Sprintf("%.12s removed the patch's files, and strata's record does not hold it (yet): the next run settles it", last)
		if r.opts.Once {
			return true, r.pending("", last, msg)
		}
		return true, errors.New(msg)
	}
	return false, r.settle(ctx)
}

// ready plans the next step on the work tree (Make makes it); a nil
// plan when the rollout ends there (next). dirty are the uncommitted
// changes under config/ and rendered/ (checkClean), read by the caller,
// which holds the repository lock.
func (r *runner) ready(ctx context.Context, dirty []string) (*promote.Plan, error) {
	f, err := r.load()
	if err != nil {
		return nil, err
	}
	if len(r.locations(f)) == 0 {
		// The hold brought the work tree to the remote's commits, where
		// another run's step (its fold) removed the patch's files.
		return nil, errMoved
	}
	plan, err := r.next(f)
	if err != nil || plan == nil {
		return nil, err
	}
	if err := r.watchablePlan(f, plan); err != nil {
		return nil, err
	}
	if err := r.checkClean(dirty); err != nil {
		return nil, err
	}
	// Another run (CI's --once beside a --watch) may have taken this
	// step meanwhile and seen it fail: the record says so before each
	// step, not only when the run began. Or taken a step this run has
	// not seen pass: that one is settled first.
	if err := r.stopped(ctx, plan.Target); err != nil {
		r.emitStopped(err)
		return nil, err
	}
	if r.verified != "" {
		files, err := record.FilesOf(ctx, r.env.Git, "HEAD", r.ID())
		if err != nil {
			return nil, err
		}
		if files != r.verified {
			return nil, errMoved
		}
	}
	if err := r.reach(ctx); err != nil {
		return nil, err
	}
	return plan, nil
}

// locations are the nodes where the patch is in f, in rollout order.
func (r *runner) locations(f *fleet.Fleet) []string {
	return inflight.Locations(f, r.opts.ClusterType, r.opts.Component, r.opts.Patch)
}

// ID is <type>/<component>/<patch>.
func (r *runner) ID() string {
	return r.opts.ClusterType + "/" + r.opts.Component + "/" + r.opts.Patch
}

// next plans the step the rollout takes from f; nil when it ends there
// (--until reached, the patch rolled out, a manual gate), which it
// records in the result and says in an event. The rollout and its dry run
// both take their steps from it.
func (r *runner) next(f *fleet.Fleet) (*promote.Plan, error) {
	if r.reachedUntil(f) {
		r.done(StoppedUntil, r.opts.Until, "every target under "+r.opts.Until+" has "+r.opts.Patch,
			"every target under "+r.opts.Until+" would have "+r.opts.Patch)
		return nil, nil
	}
	plan, err := r.prepare(f)
	switch {
	case errors.Is(err, errGate):
		return nil, nil
	case errors.Is(err, promote.ErrNothingToDo):
		r.done(StoppedDone, "", r.opts.Patch+" is rolled out", r.opts.Patch+" would be rolled out")
		return nil, nil
	}
	return plan, err
}

// done ends the rollout for reason with an event saying so: is, or would
// in a dry run (prefixed "dry run: ").
func (r *runner) done(reason, step, is, would string) {
	msg := is
	if r.opts.DryRun {
		msg = "dry run: " + would
	}
	r.res.Stopped = reason
	r.emit(Event{Kind: KindDone, Step: step, Message: msg})
}

// locked runs write under the repository's lock (Env.Lock), released as
// soon as it returns.
func (r *runner) locked(ctx context.Context, write func() error) error {
	if r.env.Lock == nil {
		return write()
	}
	release, err := r.env.Lock(ctx)
	if err != nil {
		return err
	}
	defer release()
	return write()
}

// catchUpLocked runs catchUp under the lock. A read without the lock
// comes first, and when it shows nothing to catch up (no promotion's
// journal, nothing uncommitted under config/ or rendered/, HEAD at the
// remote branch as the writer's one fetch saw it), the lock is not taken:
// each patch of RunAll would take it only to find nothing to do.
func (r *runner) catchUpLocked(ctx context.Context) error {
	if r.writer.Shared() && r.writer.CaughtUp(ctx, r, r.ops) {
		return nil
	}
	return r.locked(ctx, func() error { return r.catchUp(ctx) })
}

// reading runs read, which reads the work tree and writes nothing: under
// RunAll's shared writer it shares the work tree with the writer's
// rollouts (writer.Beside) rather than taking the repository lock, and takes
// the lock only when that read fails (another process writing meanwhile);
// a rollout of its own reads under the lock.
func (r *runner) reading(ctx context.Context, read func() error) error {
	if r.writer.Shared() && r.writer.Beside(read) == nil {
		return nil
	}
	return r.locked(ctx, read)
}

func (r *runner) checkOptions(f *fleet.Fleet) error {
	var ids []string
	f.Config.Root.Walk(func(n *fleet.Node) { ids = append(ids, n.ID()) })
	if u := r.opts.Until; u != "" && f.Config.Find(strings.Split(u, "/")) == nil {
		return suggest.UnknownFlag("--until", "node", u, ids)
	}
	for _, a := range r.opts.Approve {
		n := f.Config.Find(strings.Split(a, "/"))
		if n == nil {
			return suggest.UnknownFlag("--approve", "node", a, ids)
		}
		if n.Gate != fleet.GateManual {
			return fmt.Errorf("--approve %s: the node is not a manual gate (promotion: manual)", a)
		}
	}
	return nil
}

// prepare plans the next step. A manual gate that is not approved stops
// the rollout: prepare records it in the result and returns errGate.
func (r *runner) prepare(f *fleet.Fleet) (*promote.Plan, error) {
	popts := promote.Options{ClusterType: r.opts.ClusterType, Component: r.opts.Component, Patch: r.opts.Patch, Level: r.opts.Level,
		Until: r.opts.Until}
	plan, err := promote.Prepare(f, popts)
	var gate *promote.GateError
	if !errors.As(err, &gate) {
		return plan, err
	}
	var missing []string
	for _, g := range gate.Gates {
		if !slices.Contains(r.opts.Approve, g) {
			missing = append(missing, g)
		}
	}
	if len(missing) > 0 {
		r.res.Stopped, r.res.Gates = StoppedGate, missing
		r.res.Command, r.res.Next = r.continueCommand(missing)
		r.emit(Event{Kind: KindGate, Gates: missing, Command: r.res.Command, Next: r.res.Next,
			Message: "the next step enters the manual gate " + strings.Join(missing, ", ")})
		return nil, errGate
	}
	popts.Approve, popts.Approver, popts.Now = true, r.opts.Approver, r.env.Clock.Now()
	return promote.Prepare(f, popts)
}

// checkGap refuses a patch that skips a target of the sequence (its first
// copy written by hand past one): promote can never take it further, so
// the rollout says so before it commits or waits for anything.
func (r *runner) checkGap(f *fleet.Fleet) error {
	_, err := promote.Prepare(f, promote.Options{ClusterType: r.opts.ClusterType, Component: r.opts.Component,
		Patch: r.opts.Patch, Level: r.opts.Level, Until: r.opts.Until})
	if gap := (*promote.GapError)(nil); errors.As(err, &gap) {
		return fmt.Errorf("%s of %s/%s cannot be rolled out, nothing was committed: %w (a patch enters the sequence at its first target)",
			r.opts.Patch, r.opts.ClusterType, r.opts.Component, err)
	}
	return nil
}

// errGate stops the loop at a manual gate; it is no failure.
var errGate = errors.New("stopped at a manual gate")

// continueCommand is the command that continues the rollout past gates,
// and as data when it is not the caller's own command line (Options.Args).
func (r *runner) continueCommand(gates []string) (string, hint.Command) {
	if len(r.opts.Args) > 0 {
		// A dry run's continuation is the run itself.
		args := slices.DeleteFunc(slices.Clone(r.opts.Args), func(a string) bool { return a == "--dry-run" || a == "--dry-run=true" })
		cmd := hint.Strata(args...).String()
		for _, g := range gates {
			cmd += " --approve " + hint.Quote(g)
		}
		return cmd, nil
	}
	cmd := hint.Strata("rollout", r.opts.ClusterType, r.opts.Component, r.opts.Patch)
	for _, g := range gates {
		cmd = append(cmd, "--approve", g)
	}
	if r.opts.Level != "" {
		cmd = append(cmd, "--level", r.opts.Level)
	}
	return cmd.String(), cmd
}

// reachedUntil reports whether every target under opts.Until has the
// patch (or it is folded into values.yaml).
func (r *runner) reachedUntil(f *fleet.Fleet) bool {
	if r.opts.Until == "" {
		return false
	}
	n := f.Config.Find(strings.Split(r.opts.Until, "/"))
	locs := r.locations(f)
	if len(locs) == 0 {
		return false
	}
	ct := f.ClusterType(r.opts.ClusterType)
	for _, l := range n.Leaves() {
		if ct != nil && !ct.ExistsAt(l) {
			continue // no target of ct here (config.yaml's at:)
		}
		covered := false
		for _, loc := range locs {
			if loc == l.ID() || strings.HasPrefix(l.ID(), loc+"/") {
				covered = true
			}
		}
		if !covered {
			return false
		}
	}
	return true
}

// passedAt notes that the patch passed as commit has it (verified); ""
// where its files cannot be read, which takes no step's guard away but
// this one.
func (r *runner) passedAt(ctx context.Context, commit string) {
	files, err := record.FilesOf(ctx, r.env.Git, commit, r.ID())
	if err != nil {
		files = ""
	}
	r.verified = files
}
