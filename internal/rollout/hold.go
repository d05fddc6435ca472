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
// no stopWhen condition holds, reading both every Env.HoldEvery and
// saying why it holds (KindHeld) when that changes. A condition that
// cannot be read holds too, and past its grace ends the rollout with an
// *UnreadableError (a --once run too).
func (r *runner) hold(ctx context.Context, f *fleet.Fleet, node string) error {
	tick := r.env.Clock.NewTicker(r.env.HoldEvery)
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

// UnreadableError ends a rollout held by a stopWhen condition (or a
// check, with Check) unreadable since Since for longer than its Grace:
// --once exits 5, --watch's /healthz answers 503. Step is the node the
// rollout was to enter or verify ("" for a fold), Reason the last error.
type UnreadableError struct {
	Condition, Step string
	Check           bool
	Since           time.Time
	Grace           time.Duration
	Reason          string
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
// since, once past its grace; nil before.
func (r *runner) unreadable(u *fleet.StopCondition, node string, since time.Time, reason error) error {
	if r.env.Clock.Since(since) < u.Grace {
		return nil
	}
	return &UnreadableError{Condition: u.Name, Step: node, Since: since, Grace: u.Grace, Reason: reason.Error()}
}

// unreadableCheck is the *UnreadableError of a Prometheus check whose
// query could not be read (an *alert.Error); nil for a verdict.
func unreadableCheck(c fleet.Check, node string, now time.Time, err error) *UnreadableError {
	var ae *alert.Error
	if c.Prometheus == nil || !errors.As(err, &ae) {
		return nil
	}
	return &UnreadableError{Check: true, Condition: c.Name, Step: node, Since: now, Reason: err.Error()}
}

// readCheck runs check c of st's step; a Prometheus check that cannot be
// read is read again every Env.HoldEvery until it can be, or past its
// grace is an *UnreadableError (the step neither passed nor failed).
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
		if err := r.sleep(ctx, min(r.env.HoldEvery, c.Grace-r.env.Clock.Since(since))); err != nil {
			return err
		}
	}
}

// sleep waits d on the clock, or until ctx ends (its cause).
func (r *runner) sleep(ctx context.Context, d time.Duration) error {
	t := r.env.Clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C():
		return nil
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
// that holds, or, when none does, one that cannot be read.
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

// freezes reads the freezes of the remote branch, which every clone
// shares; the work tree's when the remote cannot be read.
func (r *runner) freezes(ctx context.Context, f *fleet.Fleet) ([]freeze.Freeze, error) {
	if r.repo.Remote == "" {
		return freeze.Read(r.fsys, f.Config)
	}
	tip, err := r.repo.Fetch(ctx)
	var listed string
	if err == nil {
		listed, err = r.repo.Git.Out(ctx, "ls-tree", "--name-only", tip, "--", freeze.File)
	}
	if err != nil {
		r.log("reading the freezes of %s %s: %v; reading the work tree's", r.repo.Remote, r.repo.Branch, err)
		return freeze.Read(r.fsys, f.Config)
	}
	if listed == "" {
		return nil, nil
	}
	data, err := r.repo.Git.Out(ctx, "show", tip+":"+freeze.File)
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

// guard reads a step's stopWhen conditions throughout its wait and soak,
// each at its own interval: the first that holds fails the step through
// r.alarm. One that cannot be read is logged (last reads it again).
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

// last stops the guard and reads every condition once more: one that
// holds fails the step. At the step's end (final) one that cannot be read
// is read again every Env.HoldEvery, past its grace an *UnreadableError;
// a --once run in progress leaves it to the next run.
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
			if err := g.r.sleep(ctx, g.r.env.HoldEvery); err != nil {
				return err
			}
		}
	}
	return nil
}

func (g *guard) failure(c fleet.StopCondition, alerts []alert.Alert) error {
	return &StepError{Step: g.st.node, Commit: g.st.commit, Failures: []Failure{{Alert: c.Name, Alerts: alerts,
		Reason: fmt.Sprintf("stopWhen %s holds during the step's wait or soak: %s", c.Name, alert.Describe(alerts))}}}
}

// holdFirstCopy holds the commit of the patch's hand-written first copy:
// a step into its latest location.
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
