package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/strata-fleet/strata/internal/bootstrap"
	"github.com/strata-fleet/strata/internal/fleet"
)

type bootstrapOptions struct {
	*globals
	opts bootstrap.Options
	// Where --apply goes.
	apply               bool
	kubeconfig, context string
	yes                 bool
	// Argo CD's installation.
	installArgoCD string
	argoRepo      string
	argoVersion   string
	argoValues    []string
	// A spoke's credentials.
	credContext, credKubeconfig string
	tokenFile, caFile           string
	output                      outputFormat
	timeout                     time.Duration
	matrix                      bool // accepted from before the matrix was the only root
	// Several clusters at once.
	all                    bool
	selector, changedSince string
}

func newBootstrapCmd(g *globals) *cobra.Command {
	o := &bootstrapOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "bootstrap CLUSTER | --all | --selector LABELS",
		Short: "Print or apply what a new cluster needs before Argo CD takes over",
		Long: `Bootstrap prints, as YAML for kubectl apply -f -, what the cluster CLUSTER of the
inventory (config/clusters/CLUSTER.yaml) needs; with --apply it applies it
server-side through the kubeconfig context named for the cluster the objects go
to and reports each object. docs/bootstrap.md says it in full.`,
		Example: `  # Print a cluster's bootstrap objects and apply them with kubectl
  strata bootstrap mc-use1-1 | kubectl apply --server-side -f -

  # Install Argo CD from a local chart and apply, through a kubeconfig context
  strata bootstrap mc-use1-1 --apply --context mc-use1-1 --install-argocd ./charts/argo-cd

  # The same in a script on a terminal, without the question
  strata bootstrap mc-use1-1 --apply --context mc-use1-1 --yes

  # Register a spoke on its hub with the credentials of its kubeconfig context
  strata bootstrap spoke-1 --apply --context hub-use1 --credentials-context spoke-1

  # The same with a service account token
  strata bootstrap spoke-1 --token-file sa.token --ca-file ca.pem > spoke-1.yaml

  # After a change of the root objects (not of a pin): what every affected
  # cluster needs, then apply it, each through its context (the inventory's
  # context:, else the context named as the cluster)
  strata bootstrap --all --changed-since origin/main~1
  strata bootstrap --all --changed-since origin/main~1 --apply

  # Every production cluster
  strata bootstrap --selector environment=production`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: g.completion(1, func(f *fleet.Fleet, _ []string) []string { return f.ClusterNames() }),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			if err := o.validateMany(len(args)); err != nil {
				return err
			}
			if len(args) == 0 {
				return o.runMany(cmd.Context())
			}
			return o.run(cmd.Context(), args[0])
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.apply, "apply", false, "apply the objects server-side instead of printing them")
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "the kubeconfig of --apply (default: $KUBECONFIG, else ~/.kube/config)")
	f.StringVar(&o.context, "context", "", "the kubeconfig context of --apply (default: the cluster's context: in the inventory, else the context named as the cluster; never merely the current one)")
	f.BoolVarP(&o.yes, "yes", "y", false, "apply without asking on a terminal (without a terminal, --apply proceeds after printing its plan)")
	f.StringVar(&o.installArgoCD, "install-argocd", "", "install Argo CD from this Helm chart (directory, archive, oci:// reference or chart of --argocd-repo) before applying")
	f.StringVar(&o.argoRepo, "argocd-repo", "", "the chart repository of --install-argocd")
	f.StringVar(&o.argoVersion, "argocd-version", "", "the chart version of --install-argocd (repositories and registries)")
	f.StringArrayVar(&o.argoValues, "argocd-values", nil, "a Helm values file for --install-argocd (repeatable)")
	f.StringVar(&o.credContext, "credentials-context", "", "register a spoke with the credentials of this kubeconfig context")
	f.StringVar(&o.credKubeconfig, "credentials-kubeconfig", "", "the kubeconfig of --credentials-context (default: that of --kubeconfig)")
	f.StringVar(&o.tokenFile, "token-file", "", "register a spoke with the bearer token in this file")
	f.StringVar(&o.caFile, "ca-file", "", "the PEM bundle that verifies the spoke's API server (with --token-file)")
	f.BoolVar(&o.matrix, "matrix", false, "(no effect: a hub's root ApplicationSets are always seed 000's cluster x git matrix)")
	_ = f.MarkHidden("matrix")
	f.BoolVar(&o.all, "all", false, "bootstrap every cluster of the inventory")
	f.StringVar(&o.selector, "selector", "", "bootstrap the clusters whose identity labels match `LABELS` (cluster_type=..., environment=prod, tier in (gold))")
	f.StringVar(&o.changedSince, "changed-since", "", "only the clusters whose bootstrap differs from what the fleet at `REV` gives (the root objects changed)")
	f.StringVar(&o.opts.Namespace, "argocd-namespace", bootstrap.DefaultNamespace, "Argo CD's namespace (--namespace is an alias)")
	f.SetNormalizeFunc(flagAliases)
	f.StringVar(&o.opts.SelfApp, "self-app", bootstrap.DefaultSelfApp, "the Application of the cluster's target through which Argo CD manages itself")
	f.DurationVar(&o.timeout, "timeout", 5*time.Minute, "how long --apply and --install-argocd may take")
	f.StringVarP((*string)(&o.output), "output", "o", "", "output format: the objects as yaml (default) or json; with --apply, the report as text, json or yaml")
	return cmd
}

func (o *bootstrapOptions) validate() error {
	switch {
	case o.output.validate() != nil:
		return usageErrorf("-o %s: unknown output format (yaml, json; text with --apply)", o.output)
	case o.installArgoCD != "" && !o.apply:
		return usageErrorf("--install-argocd installs into a cluster: use it with --apply")
	case (o.kubeconfig != "" || o.context != "") && !o.apply:
		return usageErrorf("--kubeconfig and --context say where --apply goes: add --apply")
	case o.yes && !o.apply:
		return usageErrorf("--yes confirms --apply: add --apply")
	case o.credContext != "" && o.tokenFile != "":
		return usageErrorf("--credentials-context and --token-file both give credentials: choose one")
	case o.caFile != "" && o.tokenFile == "":
		return usageErrorf("--ca-file goes with --token-file")
	case (o.argoRepo != "" || o.argoVersion != "" || len(o.argoValues) > 0) && o.installArgoCD == "":
		return usageErrorf("--argocd-repo, --argocd-version and --argocd-values go with --install-argocd")
	}
	return nil
}

func (o *bootstrapOptions) run(ctx context.Context, name string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.matrix {
		fmt.Fprintln(o.stderr, "strata: note: --matrix has no effect: a hub's root ApplicationSets are always seed 000's cluster x git matrix")
	}
	r, rr, err := o.openRendered()
	if err != nil {
		return err
	}
	defer r.Close()
	f, chart := rr.Fleet, rr.Chart
	switch {
	case o.credContext != "":
		kc := o.credKubeconfig
		if kc == "" {
			kc = o.kubeconfig
		}
		if o.opts.Credentials, err = bootstrap.CredentialsFromKubeconfig(kc, o.credContext); err != nil {
			return fmt.Errorf("--credentials-context: %w", err)
		}
	case o.tokenFile != "":
		if o.opts.Credentials, err = bootstrap.CredentialsFromTokenFile(o.tokenFile, o.caFile); err != nil {
			return err
		}
	}
	b, err := bootstrap.Build(f, chart, name, o.opts)
	if err != nil {
		return err
	}
	for _, n := range b.Notes {
		fmt.Fprintf(o.stderr, "strata: note: %s\n", n)
	}
	if b.Model == bootstrap.Distributed && o.opts.Credentials != nil {
		return fmt.Errorf("cluster %s runs its own Argo CD, which reaches it in-cluster: it needs no credentials (they register a spoke on its hub)", name)
	}
	if !o.apply {
		return o.print(b)
	}
	if o.installArgoCD != "" && b.Model == bootstrap.Central {
		return fmt.Errorf("cluster %s is managed by the Argo CD of its hub %s: install Argo CD when bootstrapping %s", name, b.ApplyTo, b.ApplyTo)
	}
	return o.applyAll(ctx, f, []*bootstrap.Bundle{b})
}

func (o *bootstrapOptions) print(b *bootstrap.Bundle) error {
	if o.opts.Credentials != nil {
		fmt.Fprintf(o.stderr, "strata: note: the output holds the credentials of %s (%s): apply it, never commit it\n", b.Cluster, o.opts.Credentials.Source)
	}
	if o.output == "json" {
		items := make([]any, len(b.Objects))
		for i, obj := range b.Objects {
			items[i] = obj.Object
		}
		return o.output.write(o.stdout, map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	}
	data, err := bootstrap.Manifest(b)
	if err != nil {
		return err
	}
	_, err = o.stdout.Write(data)
	return err
}
