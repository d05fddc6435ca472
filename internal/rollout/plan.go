package rollout

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/hint"
	"github.com/strata-fleet/strata/internal/promote"
	"github.com/strata-fleet/strata/internal/rollout/inflight"
	"github.com/strata-fleet/strata/internal/suggest"
)

// next plans the step the rollout (or its dry run) takes from f; nil when
// it ends there, recorded in the result and said in an event.
func (r *runner) next(f *fleet.Fleet) (*promote.Plan, error) {
	if r.reachedUntil(f) {
		r.done(StoppedUntil, r.opts.Until, "every target under "+r.opts.Until+" has "+r.opts.Patch,
			"every target under "+r.opts.Until+" would have "+r.opts.Patch)
		return nil, nil
	}
	plan, err := r.prepare(f)
	switch {
	case errors.Is(err, errGate):
		return nil, nil
	case errors.Is(err, promote.ErrNothingToDo):
		r.done(StoppedDone, "", r.opts.Patch+" is rolled out", r.opts.Patch+" would be rolled out")
		return nil, nil
	}
	return plan, err
}

// prepare plans the next step. A manual gate that is not approved stops
// the rollout: prepare records it in the result and returns errGate.
func (r *runner) prepare(f *fleet.Fleet) (*promote.Plan, error) {
	popts := promote.Options{ClusterType: r.opts.ClusterType, Component: r.opts.Component, Patch: r.opts.Patch, Level: r.opts.Level,
		Until: r.opts.Until}
	plan, err := promote.Prepare(f, popts)
	var gate *promote.GateError
	if !errors.As(err, &gate) {
		return plan, err
	}
	var missing []string
	for _, g := range gate.Gates {
		if !slices.Contains(r.opts.Approve, g) {
			missing = append(missing, g)
		}
	}
	if len(missing) > 0 {
		r.res.Stopped, r.res.Gates = StoppedGate, missing
		r.res.Command, r.res.Next = r.continueCommand(missing)
		r.emit(Event{Kind: KindGate, Gates: missing, Command: r.res.Command, Next: r.res.Next,
			Message: "the next step enters the manual gate " + strings.Join(missing, ", ")})
		return nil, errGate
	}
	popts.Approve, popts.Approver, popts.Now = true, r.opts.Approver, r.env.Clock.Now()
	return promote.Prepare(f, popts)
}

// errGate stops the loop at a manual gate; it is no failure.
var errGate = errors.New("stopped at a manual gate")

// continueCommand is the command that continues the rollout past gates,
// and as data when it is not the caller's own command line (Options.Args).
func (r *runner) continueCommand(gates []string) (string, hint.Command) {
	if len(r.opts.Args) > 0 {
		// A dry run's continuation is the run itself.
		args := slices.DeleteFunc(slices.Clone(r.opts.Args), func(a string) bool { return a == "--dry-run" || a == "--dry-run=true" })
		cmd := hint.Strata(args...).String()
		for _, g := range gates {
			cmd += " --approve " + hint.Quote(g)
		}
		return cmd, nil
	}
	cmd := hint.Strata("rollout", r.opts.ClusterType, r.opts.Component, r.opts.Patch)
	for _, g := range gates {
		cmd = append(cmd, "--approve", g)
	}
	if r.opts.Level != "" {
		cmd = append(cmd, "--level", r.opts.Level)
	}
	return cmd.String(), cmd
}

// reachedUntil reports whether every target under opts.Until has the
// patch (or it is folded into values.yaml).
func (r *runner) reachedUntil(f *fleet.Fleet) bool {
	if r.opts.Until == "" {
		return false
	}
	n := f.Config.Find(strings.Split(r.opts.Until, "/"))
	locs := r.locations(f)
	if len(locs) == 0 {
		return false
	}
	ct := f.ClusterType(r.opts.ClusterType)
	for _, l := range n.Leaves() {
		if (ct == nil || ct.ExistsAt(l)) && !inflight.Under(l.ID(), locs) {
			return false // a target of ct here without the patch
		}
	}
	return true
}

func (r *runner) checkOptions(f *fleet.Fleet) error {
	var ids []string
	f.Config.Root.Walk(func(n *fleet.Node) { ids = append(ids, n.ID()) })
	if u := r.opts.Until; u != "" && f.Config.Find(strings.Split(u, "/")) == nil {
		return suggest.UnknownFlag("--until", "node", u, ids)
	}
	for _, a := range r.opts.Approve {
		n := f.Config.Find(strings.Split(a, "/"))
		if n == nil {
			return suggest.UnknownFlag("--approve", "node", a, ids)
		}
		if n.Gate != fleet.GateManual {
			return fmt.Errorf("--approve %s: the node is not a manual gate (promotion: manual)", a)
		}
	}
	return nil
}

// checkGap refuses a patch that skips a target of the sequence (promote
// cannot take it further), before any commit or wait.
func (r *runner) checkGap(f *fleet.Fleet) error {
	_, err := promote.Prepare(f, promote.Options{ClusterType: r.opts.ClusterType, Component: r.opts.Component,
		Patch: r.opts.Patch, Level: r.opts.Level, Until: r.opts.Until})
	if gap := (*promote.GapError)(nil); errors.As(err, &gap) {
		return fmt.Errorf("%s of %s/%s cannot be rolled out, nothing was committed: %w (a patch enters the sequence at its first target)",
			r.opts.Patch, r.opts.ClusterType, r.opts.Component, err)
	}
	return nil
}
