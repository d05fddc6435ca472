package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/notify"
	"github.com/strata-fleet/strata/internal/rollout"
	"github.com/strata-fleet/strata/internal/webhook"
)

type rolloutOptions struct {
	*globals
	opts                rollout.Options
	soak, timeout       time.Duration
	onFailure           string
	kubeconfig, context string
	clusterContexts     clusterContexts
	namespace           string
	output              outputFormat
	all                 bool
	w                   watchOptions
	// holdEvery is --hold-interval (Env.HoldEvery).
	holdEvery time.Duration
	// rolloutConfig is --rollout-config: a runner's own stopWhen
	// conditions and checks (opts.Runner).
	rolloutConfig string
	// nt sends config.yaml's notifications (nil: none, or --dry-run).
	nt *notify.Notifier
}

func newRolloutCmd(g *globals) *cobra.Command {
	o := &rolloutOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "rollout CLUSTER_TYPE COMPONENT PATCH | --all",
		Short: "Promote a patch step by step, waiting for Argo CD to sync each step and the clusters to stay healthy",
		Long: `Rollout drives promote through the sequence: each step promoted, rendered,
committed and pushed (--remote, default the branch's upstream), then waited for
until every Application whose rendered output changed is synced at the step's
commit and healthy, soaked and checked (config.yaml's rollout:, --soak and
--timeout for one run). A manual gate stops it with the command that continues
(--approve NODE). A failure stops it with Argo CD's messages; --on-failure
revert reverts the failed step and waits for its targets. No step starts into
a frozen node (strata freeze) or while a rollout.stopWhen condition holds: the
rollout is held and reads both again every --hold-interval.

Exit status: 0 rolled out (or --until reached), 1 a step failed, 4 at a manual
gate it may not enter, 6 when --once stopped at a step in progress, 5 and the
other codes of docs/exit-codes.md for errors.

Run it again to continue: it starts from what the repository and the clusters
say, never from a state file. --once does what can be done now and exits, for
a scheduled job. It holds the repository lock only while a step writes; a
second run of the same patch is refused; a push refused because the remote
moved is replayed there. --all rolls out every patch in flight at once.
docs/rollout.md says how a rollout runs, in full.`,
		Example: `  # Roll patch-001 of cert-manager out, up to the first manual gate
  strata rollout management-cluster cert-manager patch-001

  # Continue into production, approved
  strata rollout management-cluster cert-manager patch-001 --approve production

  # The steps it would take, changing nothing
  strata rollout management-cluster cert-manager patch-001 --dry-run

  # Stop after integration; revert a step that fails; events as JSON lines
  strata rollout management-cluster cert-manager patch-001 --until integration --on-failure revert -o json

  # Every patch in flight at once
  strata rollout --all

  # From a scheduled CI job: what can be done now (exit 0 done, 6 in progress)
  strata rollout --all --once --on-failure revert`,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.all || o.w.watch {
				return cobra.NoArgs(cmd, args)
			}
			return cobra.ExactArgs(3)(cmd, args)
		},
		ValidArgsFunction: g.completion(3, completePatch),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(cmd); err != nil {
				return err
			}
			if !o.all && !o.w.watch {
				o.opts.ClusterType, o.opts.Component, o.opts.Patch = args[0], args[1], args[2]
			}
			return o.run(cmd.Context())
		},
	}
	f := cmd.Flags()
	f.DurationVar(&o.soak, "soak", 0, "how long each step's Applications must stay healthy (default: config.yaml rollout.soak)")
	f.DurationVar(&o.timeout, "timeout", 0, "how long a step may take to sync and become healthy (default: config.yaml rollout.timeout, else 15m); also bounds each git fetch and push (default 2m)")
	f.BoolVar(&o.all, "all", false, "roll out every patch in flight (not folded into values.yaml yet) at once, each through its own sequence, gates and soaks")
	f.BoolVar(&o.opts.Once, "once", false, "do what can be done now (steps whose soak is over, pushes, reverts) and exit: 0 done, 6 in progress, 4 at a gate, 1 failed (for a scheduled job)")
	f.StringVar(&o.opts.Until, "until", "", "stop once every target under this node has the patch")
	f.BoolVar(&o.opts.DryRun, "dry-run", false, "list the steps and change nothing")
	f.StringVar(&o.opts.Remote, "remote", "", "the remote the steps are pushed to (default: the branch's upstream)")
	f.BoolVar(&o.opts.RerunChecks, "rerun-checks", false, "run every check of a step again, even those strata's record (refs/strata/record) says passed for the patch at that step's commit")
	f.StringVar(&o.onFailure, "on-failure", "stop", "what a failed step does: stop, or revert (push a revert commit and wait for its targets)")
	f.StringSliceVar(&o.opts.Approve, "approve", nil, "pass this manual gate (a node ID; repeat for several); with --all or --watch, for every patch the run rolls out")
	f.StringVar(&o.opts.Approver, "approver", "", "who approves, \"Name <email>\" (default: git's user.name and user.email)")
	f.StringVar(&o.opts.Level, "level", "", "the dimension promotions land at (default: config promotion.level, else the second dimension)")
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "the kubeconfig that reaches the clusters running Argo CD (default: $KUBECONFIG, else ~/.kube/config)")
	f.StringVar(&o.context, "context", "", "the kubeconfig context of a fleet with one Argo CD (default: the current context)")
	addClusterContextFlag(f, &o.clusterContexts)
	f.StringVar(&o.namespace, "argocd-namespace", live.DefaultNamespace, "the namespace of Argo CD's Applications")
	addOutputFlag(f, &o.output, "json: one event per line; yaml: one document per event")
	f.BoolVar(&o.w.watch, "watch", false, "keep running: fetch the remote every --interval and roll out every patch in flight as it is pushed, until SIGTERM (implies --all)")
	f.DurationVar(&o.w.interval, "interval", time.Minute, "with --watch, how often the remote is fetched for new patches")
	f.StringVar(&o.w.metricsAddr, "metrics-addr", "", "with --watch, the `HOST:PORT` serving Prometheus metrics at /metrics and /healthz (default: none)")
	f.StringVar(&o.w.lease, "lease", "", "with --watch, elect a leader among runners through this Kubernetes Lease, `NAMESPACE/NAME` (only the leader drives rollouts)")
	f.StringVar(&o.w.webhookAddr, "webhook-addr", "", "with --watch, the `HOST:PORT` accepting push events at POST /webhook (GitHub, GitLab, Gitea, Forgejo) that make the runner fetch at once (default: none)")
	f.StringVar(&o.w.webhookSecretFile, "webhook-secret-file", "", "with --webhook-addr, the `FILE` holding the secret push events are signed with")
	f.DurationVar(&o.holdEvery, "hold-interval", rollout.DefaultHoldEvery, "how often a rollout held by a freeze or a stopWhen condition reads them again")
	f.StringVar(&o.rolloutConfig, "rollout-config", "", "a YAML `FILE` of stopWhen conditions and checks this run adds to every node's in config.yaml (the Helm chart's runner.rollout)")
	cmd.MarkFlagsMutuallyExclusive("once", "dry-run", "watch")
	return cmd
}

func (o *rolloutOptions) validate(cmd *cobra.Command) error {
	switch o.onFailure {
	case "stop":
	case "revert":
		o.opts.Revert = true
	default:
		return usageErrorf("--on-failure %s: stop or revert", o.onFailure)
	}
	for _, name := range []string{"interval", "metrics-addr", "lease", "webhook-addr", "webhook-secret-file"} {
		if cmd.Flags().Changed(name) && !o.w.watch {
			return usageErrorf("--%s goes with --watch", name)
		}
	}
	if cmd.Flags().Changed("hold-interval") {
		switch {
		case o.opts.Once || o.opts.DryRun:
			return usageErrorf("--hold-interval goes with a rollout that waits: not with --once or --dry-run")
		case o.holdEvery <= 0:
			return usageErrorf("--hold-interval %s: want a positive duration", o.holdEvery)
		}
	}
	if (o.w.webhookAddr == "") != (o.w.webhookSecretFile == "") {
		return usageErrorf("--webhook-addr and --webhook-secret-file go together: push events are taken only when signed with the secret")
	}
	if o.w.webhookSecretFile != "" {
		secret, err := webhook.ReadSecret(o.w.webhookSecretFile)
		if err != nil {
			return fmt.Errorf("--webhook-secret-file: %w", err)
		}
		o.w.webhookSecret = secret
	}
	if o.rolloutConfig != "" {
		data, err := os.ReadFile(o.rolloutConfig)
		if err != nil {
			return fmt.Errorf("--rollout-config: %w", err)
		}
		if o.opts.Runner, err = fleet.ParseRunnerRollout(o.rolloutConfig, data); err != nil {
			return err
		}
	}
	if o.w.watch && o.w.interval <= 0 {
		return usageErrorf("--interval %s: want a positive duration", o.w.interval)
	}
	if cmd.Flags().Changed("soak") {
		o.opts.Soak = &o.soak
	}
	if cmd.Flags().Changed("timeout") {
		if o.timeout <= 0 {
			return usageErrorf("--timeout %s: want a positive duration", o.timeout)
		}
		o.opts.Timeout = &o.timeout
	}
	return nil
}

func (o *rolloutOptions) run(ctx context.Context) error {
	r, err := o.open(action.Options{})
	if err != nil {
		return err
	}
	defer r.Close()
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if o.opts.Approver == "" && len(o.opts.Approve) > 0 {
		o.opts.Approver = action.GitIdentity(r.dir)
		if o.opts.Approver == "" {
			return usageErrorf("--approve records who approved: give --approver \"Name <email>\" or set git config user.name and user.email")
		}
	}
	// The patch's own lock, for a rollout of one, is held throughout;
	// the repository's only while a step writes (action.RolloutLocks).
	lo := action.RolloutLockOptions{DryRun: o.opts.DryRun, Options: o.lockOptions(),
		Waiting: func(msg string) { fmt.Fprintln(o.stderr, msg) }}
	if !o.all && !o.w.watch {
		lo.Patch = o.patchID()
	}
	locks, err := r.RolloutLocks(ctx, lo)
	if err != nil {
		return err
	}
	defer locks.Release()
	kc := live.Kubeconfig{Path: o.kubeconfig, Context: o.context, Contexts: o.clusterContexts}
	f, err := fleet.Load(r.fsys)
	if err != nil {
		return err
	}
	if err := kc.Check(f); err != nil {
		return err
	}
	if err := o.opts.Runner.Check(f.Config); err != nil {
		return err
	}
	p := newRolloutPrinter(o.stdout, o.output, o.strata)
	defer p.close()
	env := rollout.Env{Dir: r.dir, Git: git.Exec{Dir: r.dir, NetTimeout: o.timeout}, Connect: kc.Connect(f),
		Live: live.Options{Namespace: o.namespace}, Events: p.event, Lock: locks.Lock, Hold: locks.Hold,
		HoldEvery: o.holdEvery}
	if !o.opts.DryRun && len(f.Config.Notifications) > 0 {
		if o.nt, err = o.startNotifications(ctx, f.Config.Notifications, &env.Events); err != nil {
			return err
		}
		defer o.nt.Flush(notify.DefaultFlush)
	}
	if o.w.watch {
		return o.runWatch(ctx, env, kc, o.nt)
	}
	if o.all {
		// The command that continues past a gate is this one, every flag
		// repeated (--once, --on-failure revert...), with the approvals.
		o.opts.Args = o.args
		return o.runAll(ctx, env)
	}
	opts := o.opts
	opts.Args = o.args
	res, err := rollout.Run(ctx, env, opts)
	if o.nt != nil {
		o.nt.Ended(rollout.PatchResult{Patch: o.patchID(), Result: res, Err: err})
	}
	if err != nil {
		var se *rollout.StepError
		if errors.As(err, &se) && o.output.data() {
			return &exitError{code: exitFindings}
		}
		return err
	}
	if res.Stopped == rollout.StoppedGate && !o.output.data() {
		fmt.Fprintf(o.stdout, "continue with:\n  %s\n", res.Command)
	}
	if res.Stopped == rollout.StoppedGate && !o.opts.DryRun {
		return &exitError{code: exitGate}
	}
	if res.Stopped == rollout.StoppedPending {
		return &exitError{code: exitPending}
	}
	return nil
}

// patchID is the patch of a rollout of one, <type>/<component>/<patch>.
func (o *rolloutOptions) patchID() string {
	return o.opts.ClusterType + "/" + o.opts.Component + "/" + strings.TrimSuffix(o.opts.Patch, ".yaml")
}

// worstFirst orders runAll's codes, the worst first: a failure, a failed
// step, a gate, one in progress, done.
var worstFirst = []int{exitFailure, exitFindings, exitGate, exitPending, exitOK}

// worse is the worse of two of runAll's codes (worstFirst), whatever the
// order the patches ended in.
func worse(a, b int) int {
	if slices.Index(worstFirst, b) < slices.Index(worstFirst, a) {
		return b
	}
	return a
}

// patchErrors are rollout --all's patches' errors under -o json, each an
// exitError with its own code; the run exits with the worst, code.
type patchErrors struct {
	code int
	errs []error
}

func (e *patchErrors) Error() string   { return errors.Join(e.errs...).Error() }
func (e *patchErrors) Unwrap() []error { return e.errs }

// runAll is rollout --all: every patch in flight at once. Each patch's
// end is printed (its error on stderr, the command that continues past a
// gate); the exit status is the worst: a failed step 1, another failure 5,
// a gate 4, one in progress (--once) 6, else 0.
func (o *rolloutOptions) runAll(ctx context.Context, env rollout.Env) error {
	results, err := rollout.RunAll(ctx, env, o.opts)
	if err != nil {
		return err
	}
	if o.nt != nil {
		for _, pr := range results {
			o.nt.Ended(pr)
		}
	}
	code := exitOK
	var failed []error // as data: each patch's error, with its own code
	unreachable := ""
	for _, pr := range results {
		switch {
		case pr.Err != nil:
			msg := o.clean(pr.Err)
			if ue := (*rollout.UnreachableError)(nil); errors.As(pr.Err, &ue) {
				// said once, for the first patch: all read the same Argo CDs
				if unreachable == "" {
					unreachable = pr.Patch
				} else {
					msg = "cannot reach the Argo CD the rollout waits on (as for " + unreachable + "), so nothing was committed or pushed"
				}
			}
			own := exitFailure
			if se := (*rollout.StepError)(nil); errors.As(pr.Err, &se) {
				own = exitFindings
			}
			if o.output.data() {
				failed = append(failed, &exitError{code: own, msg: pr.Patch + ": " + msg})
			} else {
				fmt.Fprintf(o.stderr, "strata: %s: %s\n", pr.Patch, msg)
			}
			code = worse(code, own)
		case pr.Result.Stopped == rollout.StoppedGate:
			if !o.output.data() {
				cmd := pr.Result.Command
				if pr.Result.Next != nil {
					cmd = o.strata(pr.Result.Next...)
				}
				fmt.Fprintf(o.stdout, "%s: continue with:\n  %s\n", pr.Patch, cmd)
			}
			if !o.opts.DryRun {
				code = worse(code, exitGate)
			}
		case pr.Result.Stopped == rollout.StoppedPending:
			code = worse(code, exitPending)
		}
	}
	if len(results) == 0 && !o.output.data() {
		fmt.Fprintln(o.stdout, "no patch in flight")
	}
	if len(failed) > 0 {
		return &patchErrors{code: code, errs: failed}
	}
	if code != exitOK {
		return &exitError{code: code}
	}
	return nil
}
