package fleet_test

import (
	"slices"
	"testing"

	"github.com/strata-fleet/strata/internal/fleet"
)

// TestRunnerRolloutAdds: a runner's stopWhen conditions and checks reach
// every node, after its own, also one whose config.yaml replaces the
// inherited ones (production's stopWhen), and config.yaml's policy is
// left as it was.
func TestRunnerRolloutAdds(t *testing.T) {
	f, err := fleet.Load(fleetFS(stopConfig, nil))
	if err != nil {
		t.Fatal(err)
	}
	r, err := fleet.ParseRunnerRollout("rollout.yaml", []byte(`stopWhen:
  - name: hub
    alertmanager: {url: http://alertmanager.monitoring:9093, matchers: ['severity="page"']}
checks:
  - {name: hub-errors, prometheus: {url: http://prometheus.monitoring:9090, query: 'up == 0'}}
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Check(f.Config); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		node          string
		stops, checks []string
	}{
		{"", []string{`alerts [severity="critical"]`, "hub"}, []string{"hub-errors"}},
		{"integration", []string{`alerts [severity="critical"]`, "hub"}, []string{"hub-errors"}},
		{"production", []string{"paging", `ALERTS{alertstate="firing"}`, "hub"}, []string{"errors", "smoke", "hub-errors"}},
	} {
		var n *fleet.Node
		if tc.node != "" {
			n = f.Config.Find([]string{tc.node})
		}
		p := r.Add(f.Config.RolloutAt(n))
		var stops, checks []string
		for _, c := range p.StopWhen {
			stops = append(stops, c.Name)
		}
		for _, c := range p.Checks {
			checks = append(checks, c.Name)
		}
		if !slices.Equal(stops, tc.stops) || !slices.Equal(checks, tc.checks) {
			t.Errorf("%q: stopWhen %q, checks %q; want %q, %q", tc.node, stops, checks, tc.stops, tc.checks)
		}
		if own := f.Config.RolloutAt(n); len(own.StopWhen) != len(tc.stops)-1 {
			t.Errorf("%q: Add changed config.yaml's policy: %d conditions", tc.node, len(own.StopWhen))
		}
	}
	if got := (*fleet.RunnerRollout)(nil).Add(fleet.RolloutPolicy{}); len(got.Checks)+len(got.StopWhen) != 0 {
		t.Errorf("no runner file added %+v", got)
	}
}
