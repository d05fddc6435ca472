package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync/atomic"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/notify"
	"github.com/strata-fleet/strata/internal/rollout"
	"github.com/strata-fleet/strata/internal/runner"
	"github.com/strata-fleet/strata/internal/webhook"
)

// watchOptions are rollout --watch's: the long-lived runner.
type watchOptions struct {
	watch       bool
	interval    time.Duration
	metricsAddr string
	lease       string
	// webhookAddr and webhookSecretFile: push events (package webhook).
	webhookAddr, webhookSecretFile string
	webhookSecret                  []byte
	// leading is whether this runner delivers now (the webhook's wakes
	// reach it).
	leading atomic.Bool
}

// runWatch is rollout --watch: package runner until SIGTERM (ctx), with
// /healthz and metrics on --metrics-addr, leader election on --lease,
// push events on --webhook-addr and config.yaml's notifications.
func (o *rolloutOptions) runWatch(ctx context.Context, env rollout.Env, kc live.Kubeconfig, notifications []fleet.Notification) error {
	m := runner.NewMetrics()
	// A rollout's end is the runner's log line ("rollout ended", its
	// error with --root hints): printing it again here said it twice.
	ro := runner.Options{Env: env, Rollout: o.opts, Interval: o.w.interval, Metrics: m, Log: o.logger()}
	if len(notifications) > 0 {
		nt, err := notify.New(notifications, notify.Options{Log: o.logger()})
		if err != nil {
			return err
		}
		if err := m.Register(nt.Collectors()...); err != nil {
			return err
		}
		nctx, stop := context.WithCancel(context.WithoutCancel(ctx))
		nt.Run(nctx)
		defer func() { stop(); nt.Wait() }()
		printEvent := ro.Env.Events
		ro.Env.Events = func(e rollout.Event) {
			nt.Event(e)
			if printEvent != nil {
				printEvent(e)
			}
		}
		ro.Ended = nt.Ended
	}
	if o.w.metricsAddr != "" {
		ln, err := net.Listen("tcp", o.w.metricsAddr)
		if err != nil {
			return fmt.Errorf("--metrics-addr %s: %w", o.w.metricsAddr, err)
		}
		srv := runner.Serve(ln, m.Handler(), runner.ServerLimits{})
		defer srv.Close()
		fmt.Fprintf(o.stderr, "serving /metrics and /healthz on http://%s\n", ln.Addr())
	}
	if o.w.webhookAddr != "" {
		stop, err := o.serveWebhook(m, &ro)
		if err != nil {
			return err
		}
		defer stop()
	}
	if o.w.lease == "" {
		m.SetLeader(true)
		o.w.leading.Store(true)
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
	return ignoreCancel(runner.Lead(ctx, l, m, func(ctx context.Context) {
		o.w.leading.Store(true)
		defer o.w.leading.Store(false)
		_ = runner.Run(ctx, ro)
	}))
}

// serveWebhook serves push events on --webhook-addr: each signed push
// wakes ro's runner (ro.Wake); the requests are counted in m.
func (o *rolloutOptions) serveWebhook(m *runner.Metrics, ro *runner.Options) (stop func(), err error) {
	wake := make(chan struct{}, 1)
	h, err := webhook.New(o.w.webhookSecret, func() bool {
		if !o.w.leading.Load() {
			return false
		}
		select {
		case wake <- struct{}{}:
		default: // a fetch is due already
		}
		return true
	}, webhook.Options{})
	if err != nil {
		return nil, err
	}
	if err := m.Register(h.Collectors()...); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", o.w.webhookAddr)
	if err != nil {
		return nil, fmt.Errorf("--webhook-addr %s: %w", o.w.webhookAddr, err)
	}
	srv := h.Server()
	go func() { _ = srv.Serve(ln) }()
	fmt.Fprintf(o.stderr, "accepting push events on http://%s/webhook\n", ln.Addr())
	ro.Wake = wake
	return func() { _ = srv.Close() }, nil
}

// ignoreCancel is nil for the end of a run stopped by SIGTERM or SIGINT.
func ignoreCancel(err error) error {
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
