package action

import (
	"fmt"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/output"
	"github.com/strata-fleet/strata/internal/promote"
)

// UnrenderedError is a step refused because rendered/ does not follow
// config/ before it: something (another patch's change committed without
// strata render, say) is in config/ but not in the targets' output, and
// the step's render would deliver it under the step's commit and message.
type UnrenderedError struct {
	// Patch is the patch whose step was refused, or whose delivery is
	// asked about ("" for none).
	Patch string
	// Targets are those whose rendered output does not follow config/
	// (<cluster type>/<node>).
	Targets []string
	// Delivered says the question was whether Patch is delivered (a
	// rollout settling where the patch is), not whether a step may go.
	Delivered bool
}

func (e *UnrenderedError) Error() string {
	what := fmt.Sprintf("the step of %s would deliver that change under its own commit, so it is not taken", e.Patch)
	if e.Delivered {
		what = fmt.Sprintf("%s is not delivered there until its rendered output is", e.Patch)
	}
	return fmt.Sprintf("rendered/ does not follow config/ for %s (a change committed without strata render): %s; run strata render, commit rendered/ (git add -A rendered && git commit), then run the rollout again",
		shortTargets(e.Targets), what)
}

// shortTargets names at most five targets, then how many more.
func shortTargets(ts []string) string {
	if len(ts) <= 5 {
		return strings.Join(ts, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ts[:5], ", "), len(ts)-5)
}

// Unrendered lists the targets whose rendered output does not follow
// config/ as the work tree is now (before Apply): those plan's step can
// change (plan.RenderedDirs; every target when plan is nil or that cannot
// be told). Nothing is written. A step whose commit would take them along
// is refused with an *UnrenderedError by the caller.
func (s *Step) Unrendered(plan *promote.Plan) ([]string, error) {
	cfg, err := fleet.ReadConfig(s.FS, s.Config)
	if err != nil {
		return nil, err
	}
	var only []string
	if plan != nil {
		only = plan.RenderedDirs(cfg)
	}
	return s.UnrenderedIn(cfg, only)
}

// UnrenderedIn is Unrendered for the targets under the directories only
// of rendered/ (nil: every target).
func (s *Step) UnrenderedIn(cfg *fleet.Config, only []string) ([]string, error) {
	statePath := ""
	if !s.Stateless {
		statePath, _ = output.StatePath(s.Dir)
	}
	res, err := output.Run(output.Options{Root: s.Dir, FS: s.FS, StatePath: statePath, Only: only, Config: s.Config, Check: true})
	if err != nil {
		return nil, fmt.Errorf("checking that rendered/ follows config/ before the step: %w", err)
	}
	if res.Plan.Empty() {
		return nil, nil
	}
	ts := res.Plan.Targets(cfg)
	if len(ts) == 0 {
		// A change outside any target's directory (a removal at the
		// output root): say the output root.
		ts = []string{cfg.OutputRoot()}
	}
	return ts, nil
}
