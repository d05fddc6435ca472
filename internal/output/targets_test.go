package output

import (
	"slices"
	"testing"
)

// TestPlanTargets: the targets a plan changes are the directories
// <type>/<node> at the fleet's depth that hold a changed file, once each,
// sorted; a file outside a target's directory belongs to none.
func TestPlanTargets(t *testing.T) {
	p := &Plan{Changes: []Change{
		{Op: Update, Path: "rendered/mc/prod/us/templates/a.yaml"},
		{Op: Create, Path: "rendered/mc/int/eu/values.yaml"},
		{Op: Delete, Path: "rendered/mc/prod/us/templates/b.yaml"},
		{Op: Update, Path: "rendered/mc/prod/README"},
		{Op: Update, Path: "config/mc/x.yaml"},
	}}
	if got, want := p.Targets(2), []string{"mc/int/eu", "mc/prod/us"}; !slices.Equal(got, want) {
		t.Errorf("Targets = %q, want %q", got, want)
	}
}
