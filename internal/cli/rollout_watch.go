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
// push events on --webhook-addr and config.yaml's notifications (nt,
// started by run, with env's events).
func (o *rolloutOptions) runWatch(ctx context.Context, env rollout.Env, kc live.Kubeconfig, nt *notify.Notifier) error {
	m := runner.NewMetrics()
	// A rollout's end is the runner's log line ("rollout ended", its
	// error with --root hints): printing it again here said it twice.
	ro := runner.Options{Env: env, Rollout: o.opts, Interval: o.w.interval, Metrics: m, Log: o.logger()}
	if nt != nil {
		if err := m.Register(nt.Collectors()...); err != nil {
			return err
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
	// A push wakes the leader's fetch: from the webhook when this runner
	// leads, through the Lease when another does (runner.Relay).
	wake := make(chan struct{}, 1)
	woken := func() {
		select {
		case wake <- struct{}{}:
		default: // a fetch is due already
		}
	}
	ro.Wake = wake
	var lease *runner.Lease
	if o.w.lease != "" {
		l, err := o.leaseOf(kc)
		if err != nil {
			return err
		}
		l.Pushed = woken
		lease = &l
	} else {
		o.w.leading.Store(true)
	}
	if o.w.webhookAddr != "" {
		stop, err := o.serveWebhook(m, lease, woken)
		if err != nil {
			return err
		}
		defer stop()
	}
	if lease == nil {
		m.SetLeader(true)
		return ignoreCancel(runner.Run(ctx, ro))
	}
	return ignoreCancel(runner.Lead(ctx, *lease, m, func(ctx context.Context) {
		o.w.leading.Store(true)
		defer o.w.leading.Store(false)
		_ = runner.Run(ctx, ro)
	}))
}

// leaseOf is the Lease of --lease, reached through kc.
func (o *rolloutOptions) leaseOf(kc live.Kubeconfig) (runner.Lease, error) {
	ns, name, err := runner.ParseLease(o.w.lease)
	if err != nil {
		return runner.Lease{}, usageErrorf("%v", err)
	}
	cfg, err := kc.RestConfig()
	if err != nil {
		return runner.Lease{}, fmt.Errorf("--lease %s: %w", o.w.lease, err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return runner.Lease{}, err
	}
	host, _ := os.Hostname()
	return runner.Lease{Namespace: ns, Name: name, Client: cs, Identity: runner.Identity(host, os.Getpid()), Release: true,
		Leader: func(id string) {
			fmt.Fprintf(o.stderr, "the rollout runner leading on Lease %s/%s is %s\n", ns, name, id)
		}}, nil
}

// serveWebhook serves push events on --webhook-addr: a signed push calls
// woken while this runner leads, and is handed to the leader through
// lease while it stands by; the requests are counted in m.
func (o *rolloutOptions) serveWebhook(m *runner.Metrics, lease *runner.Lease, woken func()) (stop func(), err error) {
	h, err := webhook.New(o.w.webhookSecret, runner.PushWake(lease, o.w.leading.Load, woken), webhook.Options{})
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
	return func() { _ = srv.Close() }, nil
}

// startNotifications sends config.yaml's notifications of the events
// *events is given, from now until the returned Notifier's Flush; a run
// started again from a schedule (--once) sends only what it changed or
// judged (notify.Options.Changes).
func (o *rolloutOptions) startNotifications(ctx context.Context, ns []fleet.Notification, events *func(rollout.Event)) (*notify.Notifier, error) {
	nt, err := notify.New(ns, notify.Options{Log: o.logger(), Changes: o.opts.Once})
	if err != nil {
		return nil, err
	}
	nt.Run(context.WithoutCancel(ctx))
	next := *events
	*events = func(e rollout.Event) {
		n := e
		if n.Patch == "" && !o.all && !o.w.watch {
			n.Patch = o.patchID() // a rollout of one names its patch nowhere else
		}
		nt.Event(n)
		if next != nil {
			next(e)
		}
	}
	return nt, nil
}

// ignoreCancel is nil for the end of a run stopped by SIGTERM or SIGINT.
func ignoreCancel(err error) error {
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
