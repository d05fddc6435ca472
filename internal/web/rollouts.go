package web

import (
	"context"
	"time"

	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/rollout/inflight"
	"github.com/strata-fleet/strata/internal/status"
)

// withRollouts is st with the rollouts in flight as they stand now
// (status.ReadRollouts) and the patches folded into values.yaml
// (status.ReadAllFolded): read at each request, since soaks run down with
// the clock and steps are committed without a change under config/ the
// reload would see. With Options.Live, the last live state read gives the
// waits for Applications, and the stopWhen conditions are read, each at
// most once per its interval (conditions). With Options.Unrendered, a
// patch committed without strata render waits for it, as status says
// (unrendered). A failure is logged; the page shows the rest.
func (s *Server) withRollouts(ctx context.Context, snap *snapshot, st *status.Status) *status.Status {
	cp := *st
	g := git.Exec{Dir: s.opts.Dir}
	opts := inflight.FlightOptions{Git: g, Now: time.Now(), Unrendered: s.unrenderedFor(ctx, snap, g)}
	if s.opts.Live != nil {
		s.live.mu.RLock()
		opts.Live, opts.Alerts = s.live.rep, true
		s.live.mu.RUnlock()
		opts.ReadCondition = s.conditions.Read
	}
	if err := status.ReadRollouts(ctx, &cp, snap.fleet, s.opts.FS, opts); err != nil {
		s.opts.Logger.Warn("reading the rollouts in flight", "err", err)
	}
	// As a folded patch's page and status --patch say it.
	if err := status.ReadAllFolded(ctx, &cp, snap.fleet, opts.Git); err != nil {
		s.opts.Logger.Warn("reading the folded patches", "err", err)
	}
	return &cp
}
