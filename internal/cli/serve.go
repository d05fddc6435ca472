package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/web"
)

type serveOptions struct {
	*globals
	addr      string
	base      string
	interval  time.Duration
	allowed   []string
	live      liveOptions
	liveEvery time.Duration
}

func newServeCmd(g *globals) *cobra.Command {
	o := &serveOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve a read-only web UI: the matrix, patch rollouts, target details, the diff",
		Long: `Serve starts a read-only web UI over the fleet repository (matrix, patches,
targets, diff; --live as status --live), on 127.0.0.1:8080 by default,
answering only the hosts --allowed-host names. docs/commands.md#strata-serve
says it in full.`,
		Example: `  strata serve
  strata serve --addr 127.0.0.1:9000 --base origin/main...HEAD
  strata serve --live --cluster-context hub-use1=admin@hub-use1

  # On the network: anyone who can reach it can read the configuration
  strata serve --addr 0.0.0.0:8080 --allowed-host fleet.example.internal --allowed-host 10.0.0.5`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.live.validate(); err != nil {
				return err
			}
			return o.run(cmd.Context())
		},
	}
	f := cmd.Flags()
	o.live.addFlags(f, "show what Argo CD says of every cell, read again every --live-interval, and the stopWhen conditions holding rollouts (each read at most once per its every:)")
	f.DurationVar(&o.liveEvery, "live-interval", 10*time.Second, "how often --live reads the Argo CDs again")
	f.StringVar(&o.addr, "addr", "127.0.0.1:8080", "the `HOST:PORT` to listen on (port 0 picks a free one)")
	f.StringVar(&o.base, "base", "HEAD", "the `REV`ision the diff page compares with by default")
	f.DurationVar(&o.interval, "interval", time.Second, "how often to look for changes in the repository")
	f.StringArrayVar(&o.allowed, "allowed-host", nil, "a `HOST` name or address (besides loopback ones) that requests may name; required on a non-loopback --addr; repeatable")
	return cmd
}

func (o *serveOptions) run(ctx context.Context) error {
	host, _, err := net.SplitHostPort(o.addr)
	if err != nil {
		return usageErrorf("--addr %s: %v (want HOST:PORT, such as 127.0.0.1:8080)", o.addr, err)
	}
	if o.interval <= 0 {
		return usageErrorf("--interval %s: must be positive", o.interval)
	}
	ip := net.ParseIP(host)
	loopback := host == "localhost" || (ip != nil && ip.IsLoopback())
	if !loopback && len(o.allowed) == 0 {
		return usageErrorf("--addr %s listens beyond this machine: name the host names or addresses clients use with --allowed-host (requests for any other host are refused, a guard against DNS rebinding)", o.addr)
	}
	r, err := o.open(action.Options{})
	if err != nil {
		return err
	}
	defer r.Close()
	logger := o.logger()
	if !loopback {
		logger.Warn("listening on a non-loopback address: anyone who can reach it can read the fleet's configuration", "addr", o.addr)
	}
	opts := web.Options{Dir: r.dir, FS: r.fsys, Root: o.root, Base: o.base, Interval: o.interval, AllowedHosts: o.allowed, Logger: logger,
		Unrendered: (&action.Step{Dir: r.dir, FS: r.fsys}).UnrenderedIn} // as status and the rollout look
	if o.live.on {
		if o.liveEvery <= 0 {
			return usageErrorf("--live-interval %s: must be positive", o.liveEvery)
		}
		opts.Live = func(ctx context.Context, rr *render.Renderer) (*live.Report, error) {
			return o.live.load(ctx, r.dir, rr, false)
		}
		opts.LiveInterval = o.liveEvery
	}
	s := web.New(opts)
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %w", o.addr, unwrapOp(err))
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go s.Watch(ctx)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	fmt.Fprintf(o.stdout, "serving %s on http://%s (read-only; Ctrl-C to stop)\n", r.dir, ln.Addr())
	if err := s.Err(); err != nil {
		fmt.Fprintf(o.stdout, "the fleet does not load yet; the UI shows why:\n%v\n", err)
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	fmt.Fprintln(o.stdout, "stopped")
	return nil
}

// unwrapOp drops the "listen tcp ADDR:" prefix of a *net.OpError.
func unwrapOp(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err
	}
	return err
}
