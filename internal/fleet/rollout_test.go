package fleet_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/strata-fleet/strata/internal/fleet"
)

// rolloutConfig sets rollout policies at the top level, on an environment
// and on a region below it.
const rolloutConfig = `dimensions: [environments, regions]
rollout:
  soak: 2m
  checks:
    - {name: smoke, command: ./smoke.sh}
sequence:
  environments:
    - name: integration
      regions: [us-east1]
    - name: production
      promotion: manual
      rollout: {soak: 30m, timeout: 1h, watch: false}
      regions:
        - us-east1
        - name: eu-west1
          rollout:
            watch: true
            checks:
              - {name: metrics, command: ./metrics.sh --slo 99.9, timeout: 90s}
        - name: ap-south1
          rollout: {checks: []}
cluster_types: [hub, workload]
`

func TestRolloutPolicyInheritance(t *testing.T) {
	f, err := fleet.Load(fleetFS(rolloutConfig, nil))
	if err != nil {
		t.Fatal(err)
	}
	smoke := fleet.Check{Name: "smoke", Command: "./smoke.sh", Timeout: fleet.DefaultCheckTimeout}
	tests := []struct {
		node string
		want fleet.RolloutPolicy
	}{
		{"integration/us-east1", fleet.RolloutPolicy{Soak: 2 * time.Minute, Timeout: fleet.DefaultRolloutTimeout, Checks: []fleet.Check{smoke}}},
		{"production", fleet.RolloutPolicy{Soak: 30 * time.Minute, Timeout: time.Hour, Checks: []fleet.Check{smoke}, NoWatch: true}},
		{"production/us-east1", fleet.RolloutPolicy{Soak: 30 * time.Minute, Timeout: time.Hour, Checks: []fleet.Check{smoke}, NoWatch: true}},
		{"production/eu-west1", fleet.RolloutPolicy{Soak: 30 * time.Minute, Timeout: time.Hour,
			Checks: []fleet.Check{{Name: "metrics", Command: "./metrics.sh --slo 99.9", Timeout: 90 * time.Second}}}},
		{"production/ap-south1", fleet.RolloutPolicy{Soak: 30 * time.Minute, Timeout: time.Hour, NoWatch: true}},
	}
	for _, tt := range tests {
		t.Run(tt.node, func(t *testing.T) {
			n := f.Config.Find(strings.Split(tt.node, "/"))
			got := f.Config.RolloutAt(n)
			if d := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(fleet.Check{}, "Pos"), cmpopts.EquateEmpty()); d != "" {
				t.Errorf("RolloutAt(%s) (-want +got):\n%s", tt.node, d)
			}
		})
	}
}

func TestRolloutDefaults(t *testing.T) {
	f, err := fleet.Load(fleetFS(seed003Config, nil))
	if err != nil {
		t.Fatal(err)
	}
	got := f.Config.RolloutAt(f.Config.Find([]string{"integration", "us-east1"}))
	if d := cmp.Diff(fleet.RolloutPolicy{Timeout: fleet.DefaultRolloutTimeout}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestRolloutErrors(t *testing.T) {
	tests := []struct {
		name, old, new string
		want           []string
	}{
		{"a number is no duration", "soak: 2m", "soak: 120",
			[]string{"rollout.soak: expected a duration, got 120", "config/config.yaml:3:9", `"90s", "5m"`}},
		{"a duration without unit", "soak: 2m", "soak: '2'",
			[]string{`rollout.soak: "2" is not a duration`, "config/config.yaml:3:9"}},
		{"a misspelled key", "soak: 30m, timeout: 1h", "soak: 30m, timout: 1h",
			[]string{"sequence.environments.1.rollout.timout: unknown key", `did you mean "timeout"?`}},
		{"a check without command", "{name: smoke, command: ./smoke.sh}", "{name: smoke}",
			[]string{"rollout.checks.0: missing key command", "config/config.yaml:5:7"}},
		{"checks that are no list", "rollout: {checks: []}", "rollout: {checks: ./x.sh}",
			[]string{"sequence.environments.1.regions.2.rollout.checks: expected a list"}},
		{"watch that is no boolean", "watch: true", "watch: nope",
			[]string{`sequence.environments.1.regions.1.rollout.watch: expected true or false, got "nope"`, "config/config.yaml:17:20", "nothing for strata rollout to wait on"}},
		{"a negative check timeout", "timeout: 90s", "timeout: -1s",
			[]string{`checks.0.timeout: "-1s" is not a duration`}},
		{"a check timeout of 0", "timeout: 90s", "timeout: 0s",
			[]string{"checks.0.timeout: timeout must be more than 0", "config/config.yaml:19:76"}},
		{"a rollout timeout of 0", "soak: 30m, timeout: 1h", "soak: 30m, timeout: 0s",
			[]string{"sequence.environments.1.rollout.timeout: timeout must be more than 0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			config := strings.Replace(rolloutConfig, tt.old, tt.new, 1)
			if config == rolloutConfig {
				t.Fatalf("%q is not in the config", tt.old)
			}
			_, err := fleet.Load(fleetFS(config, nil))
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
		})
	}
}

// A step over nodes of different policies (a fold) meets each of them.
func TestStrictest(t *testing.T) {
	smoke := fleet.Check{Name: "smoke", Command: "./smoke.sh", Timeout: time.Minute}
	errs := fleet.Check{Name: "errors", Prometheus: &fleet.PrometheusQuery{URL: "http://p", Query: "up == 0"}, Timeout: time.Minute}
	alerts := fleet.StopCondition{Name: "critical"}
	for _, c := range []struct {
		name string
		in   []fleet.RolloutPolicy
		want fleet.RolloutPolicy
	}{{
		name: "no policy is the defaults",
		want: fleet.RolloutPolicy{Timeout: fleet.DefaultRolloutTimeout},
	}, {
		name: "the longest soak and timeout, every check and condition once",
		in: []fleet.RolloutPolicy{
			{Soak: time.Hour, Timeout: time.Minute, Checks: []fleet.Check{smoke}},
			{Soak: time.Minute, Timeout: time.Hour, Checks: []fleet.Check{smoke, errs}, StopWhen: []fleet.StopCondition{alerts}},
		},
		want: fleet.RolloutPolicy{Soak: time.Hour, Timeout: time.Hour, Checks: []fleet.Check{smoke, errs}, StopWhen: []fleet.StopCondition{alerts}},
	}, {
		name: "the smallest budget of one kind",
		in:   []fleet.RolloutPolicy{{MaxUnhealthy: fleet.Amount{N: 3}}, {MaxUnhealthy: fleet.Amount{N: 1}}},
		want: fleet.RolloutPolicy{MaxUnhealthy: fleet.Amount{N: 1}},
	}, {
		name: "no budget where one node has none",
		in:   []fleet.RolloutPolicy{{MaxUnhealthy: fleet.Amount{N: 10, Percent: true}}, {}},
		want: fleet.RolloutPolicy{},
	}, {
		name: "no budget where a count meets a percentage",
		in:   []fleet.RolloutPolicy{{MaxUnhealthy: fleet.Amount{N: 10, Percent: true}}, {MaxUnhealthy: fleet.Amount{N: 2}}},
		want: fleet.RolloutPolicy{},
	}, {
		name: "watched unless every node says watch: false",
		in:   []fleet.RolloutPolicy{{NoWatch: true}, {}},
		want: fleet.RolloutPolicy{},
	}, {
		name: "not watched where none is",
		in:   []fleet.RolloutPolicy{{NoWatch: true}, {NoWatch: true}},
		want: fleet.RolloutPolicy{NoWatch: true},
	}} {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, fleet.Strictest(c.in...), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Strictest (-want +got):\n%s", diff)
			}
		})
	}
}
