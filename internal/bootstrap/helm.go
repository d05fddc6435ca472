package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"helm.sh/helm/v4/pkg/action"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/cli"
	"helm.sh/helm/v4/pkg/cli/values"
	"helm.sh/helm/v4/pkg/getter"
	"helm.sh/helm/v4/pkg/kube"
	"helm.sh/helm/v4/pkg/registry"
	releasev1 "helm.sh/helm/v4/pkg/release/v1"
	"helm.sh/helm/v4/pkg/storage/driver"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	stratakube "github.com/strata-fleet/strata/internal/kube"
)

// InstallOptions say which Argo CD chart to install where.
type InstallOptions struct {
	// Chart is a local chart directory or archive, an oci:// reference, or
	// a chart name in RepoURL.
	Chart   string
	RepoURL string
	// Version constrains the chart version (repositories and registries).
	Version string
	// ValuesFiles are Helm values files, merged in order.
	ValuesFiles []string
	Namespace   string
	// ReleaseName defaults to argocd.
	ReleaseName string
	// Getter reaches the cluster (a kubeconfig and context; its namespace
	// should be Namespace: see KubeGetter).
	Getter genericclioptions.RESTClientGetter
	// Timeout bounds the installation (default 5 minutes).
	Timeout time.Duration
}

// InstallArgoCD installs Argo CD with the Helm library, unless a release of
// that name exists: once installed, Argo CD manages itself (the
// self-management Application), and strata leaves it alone.
func InstallArgoCD(ctx context.Context, opts InstallOptions) (Result, error) {
	if opts.ReleaseName == "" {
		opts.ReleaseName = "argocd"
	}
	if opts.Namespace == "" {
		opts.Namespace = DefaultNamespace
	}
	if opts.Timeout == 0 {
		opts.Timeout = 5 * time.Minute
	}
	res := Result{Kind: "HelmRelease", Namespace: opts.Namespace, Name: opts.ReleaseName}
	cfg := action.NewConfiguration(action.ConfigurationSetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)).Handler()))
	if err := cfg.Init(opts.Getter, opts.Namespace, "secret"); err != nil {
		return res, fmt.Errorf("preparing Helm: %w", err)
	}
	if rel, err := cfg.Releases.Last(opts.ReleaseName); err == nil {
		res.Action = Skipped
		res.Detail = fmt.Sprintf("release %s exists (revision %d, %s): Argo CD manages itself", opts.ReleaseName, releaseVersion(rel), releaseChart(rel))
		return res, nil
	} else if !errors.Is(err, driver.ErrReleaseNotFound) {
		return res, fmt.Errorf("looking for release %s: %w", opts.ReleaseName, err)
	}
	settings := cli.New()
	reg, err := registry.NewClient(registry.ClientOptWriter(io.Discard))
	if err != nil {
		return res, err
	}
	cfg.RegistryClient = reg
	inst := action.NewInstall(cfg)
	inst.ReleaseName, inst.Namespace, inst.CreateNamespace = opts.ReleaseName, opts.Namespace, true
	inst.WaitStrategy, inst.Timeout = kube.HookOnlyStrategy, opts.Timeout
	inst.RepoURL, inst.Version = opts.RepoURL, opts.Version
	inst.SetRegistryClient(reg)
	path, err := inst.LocateChart(opts.Chart, settings)
	if err != nil {
		return res, fmt.Errorf("locating chart %s: %w", opts.Chart, err)
	}
	ch, err := loader.Load(path)
	if err != nil {
		return res, fmt.Errorf("loading chart %s: %w", opts.Chart, err)
	}
	vals, err := (&values.Options{ValueFiles: opts.ValuesFiles}).MergeValues(getter.All(settings))
	if err != nil {
		return res, fmt.Errorf("reading the values files: %w", err)
	}
	if _, err := inst.RunWithContext(ctx, ch, vals); err != nil {
		return res, fmt.Errorf("installing %s: %w", chartName(ch), err)
	}
	res.Action = Installed
	res.Detail = chartName(ch)
	return res, nil
}

func chartName(ch *chart.Chart) string {
	if ch.Metadata == nil {
		return "chart"
	}
	return ch.Metadata.Name + " " + ch.Metadata.Version
}

func releaseVersion(rel any) int {
	if r, ok := rel.(*releasev1.Release); ok {
		return r.Version
	}
	return 0
}

func releaseChart(rel any) string {
	if r, ok := rel.(*releasev1.Release); ok && r.Chart != nil {
		return chartName(r.Chart)
	}
	return "unknown chart"
}

// KubeGetter reaches the cluster of a kubeconfig file and context ("" for
// the defaults: $KUBECONFIG or ~/.kube/config, its current context), with
// namespace as the namespace of objects that name none (Helm installs a
// chart's objects there).
func KubeGetter(kubeconfig, context, namespace string) *genericclioptions.ConfigFlags {
	flags := genericclioptions.NewConfigFlags(false)
	flags.WrapConfigFn = stratakube.Secure // Helm's clients get strata's safeguards
	flags.Namespace = &namespace
	if kubeconfig != "" {
		flags.KubeConfig = &kubeconfig
	}
	if context != "" {
		flags.Context = &context
	}
	return flags
}
