package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/rollout"
)

type rolloutOptions struct {
	*globals
	opts                rollout.Options
	soak, timeout       time.Duration
	onFailure           string
	kubeconfig, context string
	clusterContexts     []string
	namespace           string
	output              outputFormat
}

func newRolloutCmd(g *globals) *cobra.Command {
	o := &rolloutOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "rollout CLUSTER_TYPE COMPONENT PATCH",
		Short: "Promote a patch step by step, waiting for Argo CD to sync each step and the clusters to stay healthy",
		Long: `Rollout drives promote through the sequence. Each step is promoted, rendered,
committed (the message says what moved where and how many targets' rendered
output changed) and pushed (--remote, default the branch's upstream); then the
rollout waits until every Application whose rendered output changed is synced
at a revision containing the step's commit and healthy, soaks (the Applications
must stay healthy) and runs the configured checks before the next step.

Soak, timeout and checks come from config.yaml (rollout: at the top level or on
a node of the sequence, inherited downwards); --soak and --timeout override
them for one run. A manual gate stops the rollout with the command that
continues it (--approve NODE, recorded in the patch and the commit). A failure
(a failed sync, a degraded Application, a failed check, a timeout) stops it
with Argo CD's messages and a non-zero exit; --on-failure revert reverts the
failed step and waits for its targets to be healthy again.

Stop the line: no step starts into a node frozen by strata freeze (read from
the remote branch before each step) or while a rollout.stopWhen condition
holds (alerts firing in Alertmanager, or a Prometheus query returning
samples); the rollout says it is held ("held" event) and goes on once neither
holds. A stopWhen condition that starts holding during a step's wait or soak
fails the step. Checks may be Prometheus queries: samples fail them.

Exit status: 0 when the patch is rolled out (or --until is reached), 1 when a
step failed, 4 when the rollout stopped at a manual gate it may not enter (the
"gate" event, with the command that continues; a dry run exits 0), and the
other codes of docs/exit-codes.md for errors (5: a cluster or Git failed).

Run it again to continue: it starts from what the repository and the clusters
say (an interrupted promotion, the patch's first copy not committed yet,
commits not pushed), never from a state file.`,
		Example: `  # Roll patch-001 of cert-manager out, up to the first manual gate
  strata rollout management-cluster cert-manager patch-001

  # Continue into production, approved
  strata rollout management-cluster cert-manager patch-001 --approve production

  # The steps it would take, changing nothing
  strata rollout management-cluster cert-manager patch-001 --dry-run

  # Stop after integration; revert a step that fails; events as JSON lines
  strata rollout management-cluster cert-manager patch-001 --until integration --on-failure revert -o json`,
		Args:              cobra.ExactArgs(3),
		ValidArgsFunction: (&promoteOptions{globals: g}).complete,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(cmd); err != nil {
				return err
			}
			o.opts.ClusterType, o.opts.Component, o.opts.Patch = args[0], args[1], args[2]
			return o.run(cmd.Context())
		},
	}
	f := cmd.Flags()
	f.DurationVar(&o.soak, "soak", 0, "how long each step's Applications must stay healthy (default: config.yaml rollout.soak)")
	f.DurationVar(&o.timeout, "timeout", 0, "how long a step may take to sync and become healthy (default: config.yaml rollout.timeout, else 15m)")
	f.StringVar(&o.opts.Until, "until", "", "stop once every target under this node has the patch")
	f.BoolVar(&o.opts.DryRun, "dry-run", false, "list the steps and change nothing")
	f.StringVar(&o.opts.Remote, "remote", "", "the remote the steps are pushed to (default: the branch's upstream)")
	f.StringVar(&o.onFailure, "on-failure", "stop", "what a failed step does: stop, or revert (push a revert commit and wait for its targets)")
	f.StringSliceVar(&o.opts.Approve, "approve", nil, "pass this manual gate (a node ID; repeat for several)")
	f.StringVar(&o.opts.Approver, "approver", "", "who approves, \"Name <email>\" (default: git's user.name and user.email)")
	f.StringVar(&o.opts.Level, "level", "", "the dimension promotions land at (default: config promotion.level, else the second dimension)")
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "the kubeconfig that reaches the clusters running Argo CD (default: $KUBECONFIG, else ~/.kube/config)")
	f.StringVar(&o.context, "context", "", "the kubeconfig context of a fleet with one Argo CD (default: the current context)")
	f.StringSliceVar(&o.clusterContexts, "cluster-context", nil, "the kubeconfig context of a cluster running Argo CD, NAME=CONTEXT (repeatable; default: the inventory's context:, else a context named like the cluster)")
	f.StringVar(&o.namespace, "argocd-namespace", live.DefaultNamespace, "the namespace of Argo CD's Applications")
	addOutputFlag(f, &o.output, "json: one event per line; yaml: one document per event")
	return cmd
}

func (o *rolloutOptions) validate(cmd *cobra.Command) error {
	if err := o.output.validate(); err != nil {
		return err
	}
	switch o.onFailure {
	case "stop":
	case "revert":
		o.opts.Revert = true
	default:
		return usageErrorf("--on-failure %s: stop or revert", o.onFailure)
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
	r, err := o.openRepo()
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
		o.opts.Approver = gitIdentity(r.dir)
		if o.opts.Approver == "" {
			return usageErrorf("--approve records who approved: give --approver \"Name <email>\" or set git config user.name and user.email")
		}
	}
	if !o.opts.DryRun {
		// Held throughout, waits included: no promote, pin, render or
		// other rollout of this repository interleaves with its steps.
		l, err := o.lock(r.dir)
		if err != nil {
			return err
		}
		defer l.Release()
	}
	kc := live.Kubeconfig{Path: o.kubeconfig, Context: o.context, Contexts: map[string]string{}}
	for _, cc := range o.clusterContexts {
		name, ctx, ok := strings.Cut(cc, "=")
		if !ok || name == "" || ctx == "" {
			return usageErrorf("--cluster-context %s: want NAME=CONTEXT", cc)
		}
		kc.Contexts[name] = ctx
	}
	f, err := fleet.Load(r.fsys)
	if err != nil {
		return err
	}
	if err := kc.Check(f); err != nil {
		return err
	}
	p := newRolloutPrinter(o.stdout, o.output)
	defer p.close()
	env := rollout.Env{Dir: r.dir, Git: rollout.ExecGit{Dir: r.dir}, Connect: kc.Connect(f),
		Live: live.Options{Namespace: o.namespace}, Events: p.event}
	res, err := rollout.Run(ctx, env, o.opts)
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
	return nil
}
