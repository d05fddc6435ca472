package rollout

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/strata-fleet/strata/internal/alert"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/freeze"
	"github.com/strata-fleet/strata/internal/rollout/inflight"
)

// DefaultHoldEvery is how often a held rollout reads the freezes and the
// stopWhen conditions again.
const DefaultHoldEvery = 30 * time.Second

// hold returns once no freeze holds a step into node ("" for a fold) and
// no stopWhen condition of its policy holds. Until then the rollout is
// held: it says why (KindHeld, again when the reason changes) and reads
// both again every Env.HoldEvery. A condition that cannot be read holds
// the rollout too (it cannot tell whether the line is stopped), and once
// it has been unreadable for longer than its grace the rollout ends with
// an *UnreadableError (a --once run too, which reads it again meanwhile
// rather than end as in progress).
func (r *runner) hold(ctx context.Context, f *fleet.Fleet, node string) error {
	tick := r.env.Clock.NewTicker(r.holdEvery())
	defer tick.Stop()
	last := ""
	var unreadSince time.Time
	for {
		h, err := r.held(ctx, f, node)
		if err != nil || h.why == "" {
			return err
		}
		if h.unreadable == nil {
			unreadSince = time.Time{}
		} else if unreadSince.IsZero() {
			unreadSince = r.env.Clock.Now()
		}
		if h.why != last {
			last = h.why
			ev := Event{Kind: KindHeld, Step: node, Message: h.why, Alerts: h.alerts}
			if h.unreadable != nil {
				ev.Unreadable, ev.Since = h.unreadable.Name, unreadSince
			}
			r.emit(ev)
		}
		if u := h.unreadable; u != nil {
			if err := r.unreadable(u, node, unreadSince, h.reason); err != nil {
				return err
			}
		} else if r.opts.Once {
			return r.pending(node, "", "held: "+h.why)
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-tick.C():
		}
	}
}

// UnreadableError ends a rollout held by a stopWhen condition that could
// not be read for longer than its grace: rollout --once exits 5 (an
// alert, not "in progress"), and rollout --watch's /healthz answers 503.
type UnreadableError struct {
	// Condition is its name (a check's, with Check), Step the node the
	// rollout was to enter or verify ("" for a fold).
	Condition, Step string
	Check           bool
	// Since is when it was first unreadable, Grace how long it may be.
	Since time.Time
	Grace time.Duration
	// Reason is the last read's error.
	Reason string
}

func (e *UnreadableError) Error() string {
	if e.Check {
		grace := ""
		if e.Grace > 0 {
			grace = fmt.Sprintf(" (since %s, more than its grace of %s)", e.Since.UTC().Format(time.RFC3339), e.Grace)
		}
		return fmt.Sprintf("check %s cannot be read%s, so the step to %s neither passed nor failed (the next run reads it again): %s",
			e.Condition, grace, e.Step, e.Reason)
	}
	return fmt.Sprintf("stopWhen %s cannot be read (since %s, more than its grace of %s), so no step starts: %s",
		e.Condition, e.Since.UTC().Format(time.RFC3339), e.Grace, e.Reason)
}

// unreadable is the *UnreadableError of condition u, unreadable since
// since, once its grace has passed; nil before.
func (r *runner) unreadable(u *fleet.StopCondition, node string, since time.Time, reason error) error {
	if r.env.Clock.Since(since) < u.Grace {
		return nil
	}
	return &UnreadableError{Condition: u.Name, Step: node, Since: since, Grace: u.Grace, Reason: reason.Error()}
}

// unreadableCheck is the *UnreadableError of a Prometheus check whose
// query could not be read (err an *alert.Error): the step neither passed
// nor failed, and is not reverted; nil for any other error, a verdict.
func unreadableCheck(c fleet.Check, node string, now time.Time, err error) *UnreadableError {
	var ae *alert.Error
	if c.Prometheus == nil || !errors.As(err, &ae) {
		return nil
	}
	return &UnreadableError{Check: true, Condition: c.Name, Step: node, Since: now, Reason: err.Error()}
}

// readCheck runs check c of st's step. A prometheus check that cannot be
// read holds the step, read again every Env.HoldEvery, until it can be
// (its verdict is returned) or has been unreadable for longer than its
// grace: then an *UnreadableError, the step neither passed nor failed.
func (r *runner) readCheck(ctx context.Context, st *step, c fleet.Check, env CheckEnv) error {
	var since time.Time
	for {
		err := runCheck(ctx, r.env.Dir, c, env)
		uerr := unreadableCheck(c, st.node, r.env.Clock.Now(), err)
		if uerr == nil || ctx.Err() != nil {
			return err
		}
		if since.IsZero() {
			since = uerr.Since
			r.emit(Event{Kind: KindHeld, Step: st.node, Commit: st.commit, Unreadable: c.Name, Since: since, Message: uerr.Error()})
		}
		if r.env.Clock.Since(since) >= c.Grace {
			uerr.Since, uerr.Grace = since, c.Grace
			return uerr
		}
		tick := r.env.Clock.NewTimer(min(r.holdEvery(), c.Grace-r.env.Clock.Since(since)))
		select {
		case <-ctx.Done():
			tick.Stop()
			return context.Cause(ctx)
		case <-tick.C():
		}
	}
}

// holding is what holds a step: why ("" nothing does), the alerts of a
// condition that holds, the condition that cannot be read and its error.
type holding struct {
	why        string
	alerts     []alert.Alert
	unreadable *fleet.StopCondition
	reason     error
}

// held says what holds a step into node: a freeze, a stopWhen condition
// that holds (with its alerts), or, when none holds, one that cannot be
// read (a rollout that cannot tell whether the line is stopped takes it
// for stopped).
func (r *runner) held(ctx context.Context, f *fleet.Fleet, node string) (holding, error) {
	freezes, err := r.freezes(ctx, f)
	if err != nil {
		return holding{}, err
	}
	if err := freeze.Check(freezes, node); err != nil {
		return holding{why: err.Error()}, nil
	}
	var unread holding
	for _, c := range r.policyAt(f, node).StopWhen {
		alerts, err := inflight.ReadCondition(ctx, c)
		if err != nil {
			if unread.unreadable == nil {
				unread = holding{why: fmt.Sprintf("no step starts: stopWhen %s cannot be read: %v", c.Name, err), unreadable: &c, reason: err}
			}
			continue
		}
		if len(alerts) > 0 {
			return holding{why: fmt.Sprintf("no step starts while stopWhen %s holds: %s", c.Name, alert.Describe(alerts)), alerts: alerts}, nil
		}
	}
	return unread, nil
}

// freezes reads the freezes of the remote branch the rollout pushes to,
// which every clone shares (a freeze pushed from anywhere holds this
// rollout, an unfreeze pushed from anywhere lets it go); those of the work
// tree when the remote cannot be read.
func (r *runner) freezes(ctx context.Context, f *fleet.Fleet) ([]freeze.Freeze, error) {
	if r.repo.Remote == "" {
		return freeze.Read(r.fsys, f.Config)
	}
	tip, err := r.repo.Fetch(ctx)
	var listed string
	if err == nil {
		listed, err = r.repo.Run(ctx, "ls-tree", "--name-only", tip, "--", freeze.File)
	}
	if err != nil {
		r.log("reading the freezes of %s %s: %v; reading the work tree's", r.repo.Remote, r.repo.Branch, err)
		return freeze.Read(r.fsys, f.Config)
	}
	if listed == "" {
		return nil, nil
	}
	data, err := r.repo.Run(ctx, "show", tip+":"+freeze.File)
	if err != nil {
		return nil, err
	}
	freezes, err := freeze.Parse(freeze.File, []byte(data+"\n"))
	if err == nil {
		err = freeze.Validate(freezes, f.Config)
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.repo.Remote, r.repo.Branch, err)
	}
	return freezes, nil
}

func (r *runner) holdEvery() time.Duration {
	if r.env.HoldEvery > 0 {
		return r.env.HoldEvery
	}
	return DefaultHoldEvery
}

// guard reads a step's stopWhen conditions throughout its wait and soak,
// each every its own interval: the first that holds fails the step, sent
// on r.alarm, which the wait and the soak select on. A condition that
// cannot be read meanwhile is logged, not a failure (the next step's hold
// reads it again).
type guard struct {
	r      *runner
	st     *step
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func (r *runner) guard(ctx context.Context, st *step) *guard {
	ctx, cancel := context.WithCancel(ctx)
	g := &guard{r: r, st: st, cancel: cancel}
	alarm := make(chan error, 1)
	r.alarm = alarm
	for _, c := range st.policy.StopWhen {
		tick := r.env.Clock.NewTicker(c.Every)
		g.wg.Go(func() {
			defer tick.Stop()
			for {
				alerts, err := inflight.ReadCondition(ctx, c)
				switch {
				case ctx.Err() != nil:
					return
				case err != nil:
					r.log("stopWhen %s: %v", c.Name, err)
				case len(alerts) > 0:
					select {
					case alarm <- g.failure(c, alerts):
					default:
					}
					return
				}
				select {
				case <-ctx.Done():
					return
				case <-tick.C():
				}
			}
		})
	}
	return g
}

// stop ends the guard's readings.
func (g *guard) stop() {
	g.cancel()
	g.wg.Wait()
	g.r.alarm = nil
}

// last reads every condition once more at the end of the soak, so that a
// condition that holds now fails the step whatever the interval: then
// the guard stops. At the step's end (final), a condition that cannot be
// read does not let the step pass: it is read again every Env.HoldEvery
// until it can be, and past its grace the rollout ends with an
// *UnreadableError, the step neither passed nor failed. A --once run
// that ends in progress (not final) leaves it to the next run.
func (g *guard) last(ctx context.Context, final bool) error {
	alarm := g.r.alarm
	g.stop()
	select {
	case err := <-alarm:
		return err
	default:
	}
	for _, c := range g.st.policy.StopWhen {
		var since time.Time
		for {
			alerts, err := inflight.ReadCondition(ctx, c)
			if err == nil && len(alerts) > 0 {
				return g.failure(c, alerts)
			}
			if err == nil || !final {
				break
			}
			if since.IsZero() {
				since = g.r.env.Clock.Now()
				g.r.emit(Event{Kind: KindHeld, Step: g.st.node, Commit: g.st.commit, Unreadable: c.Name, Since: since,
					Message: fmt.Sprintf("the step does not pass while stopWhen %s cannot be read: %v", c.Name, err)})
			}
			if uerr := g.r.unreadable(&c, g.st.node, since, err); uerr != nil {
				return uerr
			}
			tick := g.r.env.Clock.NewTimer(g.r.holdEvery())
			select {
			case <-ctx.Done():
				tick.Stop()
				return context.Cause(ctx)
			case <-tick.C():
			}
		}
	}
	return nil
}

func (g *guard) failure(c fleet.StopCondition, alerts []alert.Alert) error {
	return &StepError{Step: g.st.node, Commit: g.st.commit, Failures: []Failure{{Alert: c.Name, Alerts: alerts,
		Reason: fmt.Sprintf("stopWhen %s holds during the step's wait or soak: %s", c.Name, alert.Describe(alerts))}}}
}

// holdFirstCopy holds the commit of the patch's first copy, written by
// hand: a step into its latest location.
func (r *runner) holdFirstCopy(ctx context.Context) error {
	f, err := r.load()
	if err != nil {
		return err
	}
	node := ""
	if locs := r.locations(f); len(locs) > 0 {
		node = locs[len(locs)-1]
	}
	return r.hold(ctx, f, node)
}
