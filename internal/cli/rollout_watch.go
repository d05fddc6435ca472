package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/rollout"
	"github.com/strata-fleet/strata/internal/runner"
)

// watchOptions are rollout --watch's: the long-lived runner.
type watchOptions struct {
	watch       bool
	interval    time.Duration
	metricsAddr string
	lease       string
}

// runWatch is rollout --watch: package runner until SIGTERM (ctx), with
// /healthz and metrics on --metrics-addr and leader election on --lease.
func (o *rolloutOptions) runWatch(ctx context.Context, env rollout.Env, kc live.Kubeconfig) error {
	m := runner.NewMetrics()
	// A rollout's end is the runner's log line ("rollout ended", its
	// error with --root hints): printing it again here said it twice.
	ro := runner.Options{Env: env, Rollout: o.opts, Interval: o.w.interval, Metrics: m, Log: o.logger()}
	if o.w.metricsAddr != "" {
		ln, err := net.Listen("tcp", o.w.metricsAddr)
		if err != nil {
			return fmt.Errorf("--metrics-addr %s: %w", o.w.metricsAddr, err)
		}
		srv := runner.Serve(ln, m.Handler(), runner.ServerLimits{})
		defer srv.Close()
		fmt.Fprintf(o.stderr, "serving /metrics and /healthz on http://%s\n", ln.Addr())
	}
	if o.w.lease == "" {
		m.SetLeader(true)
		return ignoreCancel(runner.Run(ctx, ro))
	}
	ns, name, err := runner.ParseLease(o.w.lease)
	if err != nil {
		return usageErrorf("%v", err)
	}
	cfg, err := kc.RestConfig()
	if err != nil {
		return fmt.Errorf("--lease %s: %w", o.w.lease, err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	l := runner.Lease{Namespace: ns, Name: name, Client: cs, Identity: runner.Identity(host, os.Getpid()), Release: true,
		Leader: func(id string) {
			fmt.Fprintf(o.stderr, "the rollout runner leading on Lease %s/%s is %s\n", ns, name, id)
		}}
	return ignoreCancel(runner.Lead(ctx, l, m, func(ctx context.Context) { _ = runner.Run(ctx, ro) }))
}

// ignoreCancel is nil for the end of a run stopped by SIGTERM or SIGINT.
func ignoreCancel(err error) error {
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
