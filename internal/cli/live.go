package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/strata-fleet/strata/internal/kube"
	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/render"
)

// liveOptions are the flags of the commands that read live state from the
// fleet's Argo CDs (status --live, diff --live, serve --live).
type liveOptions struct {
	on         bool
	kubeconfig string
	context    string
	contexts   clusterContexts
	namespace  string
	timeout    time.Duration
}

func (l *liveOptions) addFlags(f *pflag.FlagSet, what string) {
	f.BoolVar(&l.on, "live", false, what)
	f.StringVar(&l.kubeconfig, "kubeconfig", "", "the kubeconfig of --live (default: $KUBECONFIG, else ~/.kube/config)")
	f.StringVar(&l.context, "context", "", "the kubeconfig context of a fleet with one Argo CD (default: the current context)")
	addClusterContextFlag(f, &l.contexts)
	f.StringVar(&l.namespace, "argocd-namespace", live.DefaultNamespace, "Argo CD's namespace on the clusters that run it")
	f.DurationVar(&l.timeout, "live-timeout", 30*time.Second, "how long reading the Argo CDs may take")
}

// validate refuses the live flags without --live.
func (l *liveOptions) validate() error {
	if !l.on && (l.kubeconfig != "" || l.context != "" || len(l.contexts) > 0) {
		return usageErrorf("--kubeconfig, --context and --cluster-context say where --live reads: add --live")
	}
	return nil
}

// load reads the live state of the fleet of repository dir; with specs,
// every object's whole spec (diff --live).
func (l *liveOptions) load(ctx context.Context, dir string, r *render.Renderer, specs bool) (*live.Report, error) {
	if len(r.Fleet.Clusters) == 0 {
		return nil, fmt.Errorf("--live reads Argo CD on the clusters of the inventory, and config/clusters/ has none: add one file per cluster (name, type, target; server and hub for a cluster managed by a hub)")
	}
	kc := live.Kubeconfig{Path: l.kubeconfig, Context: l.context, Contexts: l.contexts}
	if err := kc.Check(r.Fleet); err != nil {
		return nil, kube.ScrubError(err)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	rep, err := live.Load(ctx, dir, r, kc.Connect(r.Fleet), live.Options{Namespace: l.namespace, Specs: specs})
	return rep, kube.ScrubError(err) // serve --live shows it on its pages
}
