package promote

import (
	"errors"

	"github.com/strata-fleet/strata/internal/fleet"
)

// Review is what a change of a patch's locations amounts to, judged by the
// rules promote follows: whether the patch's locations in the fleet leave a
// gap, and which manual gates the change made it enter. Package verify uses
// it to check a change that was not made by promote.
type Review struct {
	// Found are the nodes that have the patch in the fleet, in rollout
	// order, and Files their patch files.
	Found []string `json:"found"`
	Files []string `json:"files"`
	// Gap, when set, is a target that the patch skipped.
	Gap *GapError `json:"gap,omitempty"`
	// Entered are the manual gates the patch has entered in the fleet and
	// had not entered at the nodes before.
	Entered []string `json:"entered,omitempty"`
}

// ReviewChange reviews the patch of a component of f (the fleet after the
// change) against before, the node IDs that had it before the change.
func ReviewChange(f *fleet.Fleet, clusterType, component, patch string, before []string) (*Review, error) {
	pl, err := newPlanner(f, Options{ClusterType: clusterType, Component: component, Patch: patch})
	if err != nil {
		return nil, err
	}
	after, found := pl.find()
	was := state{}
	for _, id := range before {
		was[id] = nil
	}
	r := &Review{}
	for _, n := range found {
		r.Found = append(r.Found, n.ID())
		r.Files = append(r.Files, pl.fileOf(n.ID()))
	}
	if len(found) > 0 {
		if err := pl.checkGaps(after, found[len(found)-1]); err != nil {
			if !errors.As(err, &r.Gap) {
				return nil, err
			}
		}
	}
	for _, n := range pl.walk {
		if n.Gate == fleet.GateManual && after.touches(n) && !was.touches(n) {
			r.Entered = append(r.Entered, n.ID())
		}
	}
	return r, nil
}
