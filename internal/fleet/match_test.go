package fleet_test

import (
	"testing"

	"github.com/strata-fleet/strata/internal/fleet"
)

func TestTargetPatternMatches(t *testing.T) {
	const ct, node = "management-cluster", "production/prod-sector-1/us-east1"
	for _, tc := range []struct {
		pattern string
		want    bool
	}{
		{"", true},
		{"production", true},
		{"production/*", true},
		{"production/prod-sector-1/us-east1", true},
		{"*/*/us-east1", true},
		{"prod*", true},
		{"management-cluster", true},
		{"management-cluster/production/*", true},
		{"management-cluster/*/*/us-east1", true},
		{"*/production/prod-sector-1", true},
		{"*/*/europe-east1", false},
		{"stage", false},
		{"infra-cluster/production/*", false},
		{"production/prod-sector-1/us-east1/x", false},
		{"[a", false},
	} {
		if got := fleet.TargetPattern(tc.pattern).Matches(ct, node); got != tc.want {
			t.Errorf("TargetPattern(%q).Matches(%q, %q) = %v, want %v", tc.pattern, ct, node, got, tc.want)
		}
	}
}

func TestTargetPatternCheck(t *testing.T) {
	if err := fleet.TargetPattern("production/*").Check(); err != nil {
		t.Errorf("production/*: %v", err)
	}
	if err := fleet.TargetPattern("[a").Check(); err == nil || err.Error() != "--target [a: syntax error in pattern" {
		t.Errorf("[a: error %v", err)
	}
}
