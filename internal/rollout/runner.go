package rollout

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
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
	// waves are the nodes of each wave step, by its first (enterWave).
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

// locations are the nodes where the patch is in f, in rollout order.
func (r *runner) locations(f *fleet.Fleet) []string {
	return inflight.Locations(f, r.opts.ClusterType, r.opts.Component, r.opts.Patch)
}

// ID is <type>/<component>/<patch>.
func (r *runner) ID() string {
	return r.opts.ClusterType + "/" + r.opts.Component + "/" + r.opts.Patch
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

// enterWave records the nodes of plan's wave, when it has more than one,
// so that the events of its step name them all (withWave), not only the
// first, which the step is named by.
func (r *runner) enterWave(plan *promote.Plan) {
	if plan.Wave == nil || len(plan.Wave.Nodes) < 2 {
		return
	}
	r.emitMu.Lock() // emit reads it, from the guard's goroutines too
	defer r.emitMu.Unlock()
	if r.waves == nil {
		r.waves = map[string][]string{}
	}
	r.waves[plan.Target] = plan.Wave.Nodes
}

// withWave gives e the nodes of its step's wave (see enterWave); emit
// calls it under emitMu.
func (r *runner) withWave(e *Event) {
	if nodes, ok := r.waves[e.Step]; ok && e.Nodes == nil {
		e.Nodes = nodes
	}
}

// step is one step of the rollout: a commit whose targets it waits for.
type step struct {
	// node is where the patch moved (or, for the wait on where it already
	// is, its latest location).
	node   string
	commit string
	// targets are those whose rendered output the step changed (for a
	// settle, those under the patch's locations).
	targets []*target
	// pick selects the objects to wait for (see waitSet).
	pick   func(live.AppState) bool
	settle bool
	policy fleet.RolloutPolicy
	// soak is how long to soak (less than the policy's when resuming).
	soak time.Duration
	// revert is the commit --on-failure revert reverts ("" for none).
	revert string
	// ws, when set, is the step's wait set, read when it was pushed
	// (the writer reads one for all the steps of a push).
	ws *waitSet
	// plan, c and made, for a step the rollout makes: its plan (nil for
	// the first copy's), how it is committed (for a replay) and what the
	// writer knows of it.
	plan *promote.Plan
	c    action.Commit
	made *writer.Step
	// tree is the rendered output of targets at commit, by content
	// (record.TreeOf); checks the checks run for it (the record's).
	tree   string
	checks []record.Check
	// own, for a settle, is the patch's own last commit, which its
	// failure names (commit is the last over its targets' output).
	own string
}

// action is the promotion step of the work tree (package action).
func (r *runner) action() *action.Step {
	return &action.Step{Dir: r.env.Dir, FS: r.fsys, Ops: r.ops, Retry: "run the rollout again"}
}

// policyAt is the rollout policy at node, with the run's overrides.
func (r *runner) policyAt(f *fleet.Fleet, node string) fleet.RolloutPolicy {
	var n *fleet.Node
	if node != "" {
		n = f.Config.Find(strings.Split(node, "/"))
	}
	// The run's --soak and --timeout, and a runner's own stopWhen
	// conditions and checks (--rollout-config).
	return r.opts.Runner.Add(inflight.Override(f.Config.RolloutAt(n), r.opts.Soak, r.opts.Timeout))
}

// foldPolicy is the policy of a fold, which changes the targets ids
// (<cluster type>/<node>) under nodes that may have policies of their
// own: the strictest of theirs (fleet.Strictest), the run's overrides
// applied. The fold's own run and the runs that settle it after (gone)
// read the same ids from its commit, so they judge it alike.
func (r *runner) foldPolicy(f *fleet.Fleet, ids []string) fleet.RolloutPolicy {
	if len(ids) == 0 {
		return r.policyAt(f, "")
	}
	nodes := make([]string, len(ids))
	for i, id := range ids {
		nodes[i] = strings.TrimPrefix(id, r.opts.ClusterType+"/")
	}
	return inflight.Override(f.Config.StrictestAt(nodes...), r.opts.Soak, r.opts.Timeout)
}
