package rollout

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
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
	// Once ends the run at a wait, soak or hold that is not over
	// (--once; Result.Stopped StoppedPending).
	Once bool
	// RerunChecks runs every check again, ignoring the record's passes.
	RerunChecks bool
	// Args, when set, are the command line that started the run: the
	// command that continues past a gate repeats them with the approvals.
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
	// are asked for a refresh (default DefaultRefreshEvery).
	RefreshEvery time.Duration
	Log          *slog.Logger
	// PushBackoff is the wait before a replay on a moved remote, doubled
	// for each further one (default DefaultPushBackoff).
	PushBackoff time.Duration
	// Lock, when set, takes the repository's lock for one write (the
	// catch-up, a step, a revert) and returns its release: never held
	// while the rollout waits or soaks.
	Lock func(context.Context) (release func(), err error)
	// Hold, when set, takes the lock of one patch's rollout
	// (<type>/<component>/<patch>) for RunAll's run of it.
	Hold func(ctx context.Context, patch string) (release func(), err error)
	// HoldEvery is how often a held rollout reads the freezes and the
	// stopWhen conditions again (default DefaultHoldEvery).
	HoldEvery time.Duration
	// BatchFor is how long a hold of RunAll's writer makes the steps
	// ready before it pushes them (default DefaultBatchFor).
	BatchFor time.Duration
}

// shared is what RunAll's rollouts share: the cache of live state, the
// writer, and the slots that bound the fleet loads at once (load); a
// rollout of its own has its own cache and writer, and no slots.
type shared struct {
	cache  *livecache.Cache
	writer *writer.Writer
	loads  chan struct{}
}

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
	// that continues; Next is Command as data when the rollout made it
	// (no Options.Args), for the caller to add --root.
	Gates   []string     `json:"gates,omitempty"`
	Command string       `json:"command,omitempty"`
	Next    hint.Command `json:"-"`
	// Step and Waiting, when a --once run stopped in progress: the node
	// it waits for, and what for.
	Step    string `json:"step,omitempty"`
	Waiting string `json:"waiting,omitempty"`
}

// Stop reasons of a Result.
const (
	StoppedDone  = "done"
	StoppedUntil = "until"
	StoppedGate  = "gate"
	// StoppedPending: a --once run stopped at a wait that is not over.
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
	// hide are the other patches' first copies the steps leave out;
	// ownFirst the patch's own, uncommitted, and renderedDirty says
	// rendered/ had uncommitted changes (checkClean).
	hide          []string
	ownFirst      []string
	renderedDirty bool
	// startedUnrendered: the run rendered a first copy committed without
	// its render (settle).
	startedUnrendered bool
	ops               promote.DirOps
	res               *Result
	reverting         bool // waiting for a revert
	// budget is the failure budget of the step being verified (nil for
	// none); unhealthy the Strata-Unhealthy trailers for the next commit.
	budget    *budget
	unhealthy []string
	reached   bool // reach has read every Argo CD
	// emitMu serializes events (a lost Argo CD is told from the watch's
	// goroutine).
	emitMu sync.Mutex
	// alarm carries a stopWhen failure to the wait or soak (guard).
	alarm chan error
	// writer makes and pushes the steps, making is the step it makes,
	// loads are RunAll's load slots (nil: none).
	writer *writer.Writer
	making *step
	loads  chan struct{}
	config atomic.Pointer[fleet.Config] // as configNow last parsed it
	// verified are the patch's files where this run last saw it pass: a
	// step is taken only from there (ready, errMoved).
	verified string
}

// errMoved is a step not taken: another run or a person moved the patch
// since this run saw it pass; the run settles where it stands now.
var errMoved = errors.New("the patch moved since this run saw it pass")

// configNow returns config.yaml, parsed again only when it changed.
func (r *runner) configNow() (*fleet.Config, error) {
	cfg, err := fleet.ReadConfig(r.fsys, r.config.Load())
	if err != nil {
		return nil, err
	}
	r.config.Store(cfg)
	return cfg, nil
}

// OutputRoot returns the directory of the fleet's rendered tree.
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
	if nodes, ok := r.waves[e.Step]; ok && e.Nodes == nil {
		e.Nodes = nodes // its wave's (enterWave)
	}
	if r.env.Events != nil {
		r.env.Events(e)
	}
}

func (r *runner) log(format string, args ...any) { r.env.Log.Warn(fmt.Sprintf(format, args...)) }

// load loads the component of the cluster type (action.LoadComponent),
// within one of RunAll's load slots: a hundred loads at once held
// hundreds of MB together (BENCHMARKS.md, delivery).
func (r *runner) load() (*fleet.Fleet, error) {
	if r.loads != nil {
		r.loads <- struct{}{}
		defer func() { <-r.loads }()
	}
	return action.LoadComponent(r.fsys, r.opts.ClusterType, r.opts.Component)
}

// locations are the nodes where the patch is in f, in rollout order.
func (r *runner) locations(f *fleet.Fleet) []string {
	return inflight.Locations(f, r.opts.ClusterType, r.opts.Component, r.opts.Patch)
}

// ID is <type>/<component>/<patch>.
func (r *runner) ID() string {
	return r.opts.ClusterType + "/" + r.opts.Component + "/" + r.opts.Patch
}

// done ends the rollout for reason, saying is (would in a dry run).
func (r *runner) done(reason, step, is, would string) {
	msg := is
	if r.opts.DryRun {
		msg = "dry run: " + would
	}
	r.res.Stopped = reason
	r.emit(Event{Kind: KindDone, Step: step, Message: msg})
}

// locked runs write under the repository's lock (Env.Lock).
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

// reading runs read, which writes nothing: beside RunAll's shared writer
// (under the lock only when that fails: another process writing), or
// under the lock for a rollout of its own.
func (r *runner) reading(ctx context.Context, read func() error) error {
	if r.writer.Shared() && r.writer.Beside(read) == nil {
		return nil
	}
	return r.locked(ctx, read)
}

// passedAt notes that the patch passed as commit has it (verified; ""
// where its files cannot be read).
func (r *runner) passedAt(ctx context.Context, commit string) {
	r.verified, _ = record.FilesOf(ctx, r.env.Git, commit, r.ID())
}

// enterWave records the nodes of plan's wave of more than one, so that
// its step's events name them all (emit).
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

// step is one step of the rollout: a commit whose targets it waits for.
type step struct {
	// node is where the patch moved (for a settle, its latest location).
	node   string
	commit string
	// targets are those whose rendered output the step changed (for a
	// settle, those under the patch's locations).
	targets []*target
	pick    func(live.AppState) bool // the objects to wait for
	settle  bool
	policy  fleet.RolloutPolicy
	soak    time.Duration // less than the policy's when resuming
	revert  string        // what --on-failure revert reverts ("" none)
	// ws is the wait set read when the step was pushed (nil: read it).
	ws *waitSet
	// plan (nil for the first copy), c and made: how a step the rollout
	// makes is planned, committed (for a replay) and known to the writer.
	plan *promote.Plan
	c    action.Commit
	made *writer.Step
	// tree is the targets' rendered output at commit (record.TreeOf);
	// checks the checks run for it.
	tree   string
	checks []record.Check
	// own, for a settle, is the patch's own last commit (commit is the
	// last over its targets' output).
	own string
}

// action is the promotion step of the work tree, its render not seeing
// the files hide (other patches' first copies: writer/firstcopies.go).
func (r *runner) action(hide ...string) *action.Step {
	a := &action.Step{Dir: r.env.Dir, FS: r.fsys, Ops: r.ops, Retry: "run the rollout again"}
	if len(hide) > 0 {
		a.FS, a.Stateless = writer.HidingFS{FS: r.fsys, Hide: hide}, true
	}
	return a
}

// patchFile is the patch's file at node.
func (r *runner) patchFile(node string) string {
	return path.Join("config", r.opts.ClusterType, r.opts.Component, node, strings.TrimSuffix(r.opts.Patch, ".yaml")+".yaml")
}

// policyAt is the rollout policy at node, with the run's overrides.
func (r *runner) policyAt(f *fleet.Fleet, node string) fleet.RolloutPolicy {
	var n *fleet.Node
	if node != "" {
		n = f.Config.Find(strings.Split(node, "/"))
	}
	return r.opts.Runner.Add(inflight.Override(f.Config.RolloutAt(n), r.opts.Soak, r.opts.Timeout))
}

// foldPolicy is the policy of a fold of the targets ids: the strictest of
// their nodes' (fleet.Strictest), the run's overrides applied; the runs
// that settle it (gone) read the same ids from its commit.
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
