package output

import (
	"slices"
	"testing"
	"testing/fstest"

	"github.com/strata-fleet/strata/internal/fleet"
)

// TestPlanTargets: the targets a plan changes are those whose directory
// (where the fleet's layout puts it) holds a changed file, once each,
// sorted; a file outside a target's directory belongs to none.
func TestPlanTargets(t *testing.T) {
	const sequence = `dimensions: [environments, regions]
sequence:
  environments:
    - {name: int, regions: [eu]}
    - {name: prod, regions: [us]}
cluster_types: [{name: mc}]
`
	for _, tc := range []struct {
		name, layout string
		changes      []string
	}{
		{"default layout", "", []string{
			"rendered/mc/prod/us/templates/a.yaml",
			"rendered/mc/int/eu/values.yaml",
			"rendered/mc/prod/us/templates/b.yaml",
			"rendered/mc/prod/README",
			"rendered/mc/prod/us",
			"config/mc/x.yaml",
		}},
		{"a layout of the team's", "layout: {path: 'deploy/{region}/{environment}/{clusterType}-manifests'}\n", []string{
			"deploy/us/prod/mc-manifests/templates/a.yaml",
			"deploy/eu/int/mc-manifests/values.yaml",
			"deploy/us/prod/mc-manifests/templates/b.yaml",
			"deploy/us/prod/README",
			"deploy/us/prod/mc-manifests",
			"rendered/mc/prod/us/values.yaml",
			"config/mc/x.yaml",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := fleet.ReadConfig(fstest.MapFS{"config/config.yaml": {Data: []byte(sequence + tc.layout)}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			p := &Plan{}
			for _, c := range tc.changes {
				p.Changes = append(p.Changes, Change{Op: Update, Path: c})
			}
			if got, want := p.Targets(cfg), []string{"mc/int/eu", "mc/prod/us"}; !slices.Equal(got, want) {
				t.Errorf("Targets = %q, want %q", got, want)
			}
		})
	}
}
