package verify

import (
	"fmt"
	"strings"

	"github.com/strata-fleet/strata/internal/diff"
	"github.com/strata-fleet/strata/internal/freeze"
)

// RuleFrozen names a change that reaches a target under a frozen node.
const RuleFrozen = "frozen"

// frozen flags each target whose output the change changes under a node
// that is frozen (config/freezes.yaml) in the change, or at the base when
// the change lifts the freeze: a step committed into a frozen node, or
// made with the freeze lifted in the same change. The finding points at
// the freeze.
func (c *checker) frozen(full *diff.Result) error {
	head, err := freeze.Read(c.opts.Head, c.head.Config)
	if err != nil {
		return err
	}
	base, err := freeze.Read(c.opts.Base.FS, c.base.Config)
	if err != nil {
		return fmt.Errorf("the fleet at %s: %w", c.opts.Base.Rev, err)
	}
	for _, tc := range full.Changes {
		ct, id, _ := strings.Cut(tc.ID, "/")
		if f := freeze.Holding(head, id); f != nil {
			c.add(Finding{File: freeze.File, Line: f.Pos.Line, Target: c.name(ct, id), Rule: RuleFrozen,
				Message: fmt.Sprintf("the change reaches %s, and %s", c.name(ct, id), f)})
		} else if f := freeze.Holding(base, id); f != nil {
			c.add(Finding{File: freeze.File, Line: f.Pos.Line, Target: c.name(ct, id), Rule: RuleFrozen,
				Message: fmt.Sprintf("the change reaches %s and lifts the freeze that holds it at %s (%s): lift it in a change of its own, before the step", c.name(ct, id), c.opts.Base.Rev, f)})
		}
	}
	return nil
}
