package fleet_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/strata-fleet/strata/internal/fleet"
)

// stopConfig stops every rollout on a critical alert, production's on a
// Prometheus query too, and checks production's error rate.
const stopConfig = `dimensions: [environments, regions]
rollout:
  stopWhen:
    alertmanager: {url: http://alertmanager:9093, matchers: ['severity="critical"']}
sequence:
  environments:
    - name: integration
      regions: [us-east1]
    - name: production
      rollout:
        stopWhen:
          - name: paging
            alertmanager: {url: http://alertmanager:9093, matchers: ['severity=~"critical|page"', 'team!="other"']}
            every: 1m
          - prometheus: {url: https://prometheus.example.com, query: 'ALERTS{alertstate="firing"}'}
            timeout: 5s
        checks:
          - name: errors
            prometheus: {url: http://prometheus:9090, query: 'rate(errors_total[5m]) > 1'}
          - {name: smoke, command: ./smoke.sh}
      regions: [us-east1]
cluster_types: [workload]
`

func TestStopWhenInheritance(t *testing.T) {
	f, err := fleet.Load(fleetFS(stopConfig, nil))
	if err != nil {
		t.Fatal(err)
	}
	critical := fleet.StopCondition{Name: `alerts [severity="critical"]`, Every: fleet.DefaultStopEvery, Timeout: fleet.DefaultQueryTimeout, Grace: fleet.DefaultStopGrace,
		Alertmanager: &fleet.AlertmanagerQuery{URL: "http://alertmanager:9093", Matchers: []string{`severity="critical"`}}}
	production := fleet.RolloutPolicy{Timeout: fleet.DefaultRolloutTimeout,
		StopWhen: []fleet.StopCondition{
			{Name: "paging", Every: time.Minute, Timeout: fleet.DefaultQueryTimeout, Grace: fleet.DefaultStopGrace,
				Alertmanager: &fleet.AlertmanagerQuery{URL: "http://alertmanager:9093", Matchers: []string{`severity=~"critical|page"`, `team!="other"`}}},
			{Name: `ALERTS{alertstate="firing"}`, Every: fleet.DefaultStopEvery, Timeout: 5 * time.Second, Grace: fleet.DefaultStopGrace,
				Prometheus: &fleet.PrometheusQuery{URL: "https://prometheus.example.com", Query: `ALERTS{alertstate="firing"}`}},
		},
		Checks: []fleet.Check{
			{Name: "errors", Timeout: fleet.DefaultQueryTimeout, Prometheus: &fleet.PrometheusQuery{URL: "http://prometheus:9090", Query: "rate(errors_total[5m]) > 1"}},
			{Name: "smoke", Command: "./smoke.sh", Timeout: fleet.DefaultCheckTimeout},
		},
	}
	tests := []struct {
		node string
		want fleet.RolloutPolicy
	}{
		{"integration/us-east1", fleet.RolloutPolicy{Timeout: fleet.DefaultRolloutTimeout, StopWhen: []fleet.StopCondition{critical}}},
		{"production/us-east1", production},
	}
	for _, tt := range tests {
		t.Run(tt.node, func(t *testing.T) {
			got := f.Config.RolloutAt(f.Config.Find(strings.Split(tt.node, "/")))
			ignore := cmpopts.IgnoreFields(fleet.Check{}, "Pos")
			if d := cmp.Diff(tt.want, got, ignore, cmpopts.IgnoreFields(fleet.StopCondition{}, "Pos"), cmpopts.EquateEmpty()); d != "" {
				t.Errorf("RolloutAt(%s) (-want +got):\n%s", tt.node, d)
			}
		})
	}
}

func TestStopWhenErrors(t *testing.T) {
	tests := []struct {
		name, old, new string
		want           []string
	}{
		{"a condition reading nothing", "alertmanager: {url: http://alertmanager:9093, matchers: ['severity=\"critical\"']}", "every: 1m",
			[]string{"rollout.stopWhen: a stopWhen condition reads one of alertmanager or prometheus", "config/config.yaml:4:5"}},
		{"a matcher that is none", `'team!="other"'`, `'team'`,
			[]string{`sequence.environments.1.rollout.stopWhen.0.alertmanager.matchers.1: expected a matcher, got "team"`, "config/config.yaml:13:"}},
		{"a URL without scheme", "https://prometheus.example.com", "prometheus.example.com",
			[]string{`stopWhen.1.prometheus.url: expected an http or https URL, got "prometheus.example.com"`, "config/config.yaml:15:"}},
		{"a query missing", ", query: 'ALERTS{alertstate=\"firing\"}'", "",
			[]string{"stopWhen.1.prometheus: missing key query"}},
		{"a misspelled key", "every: 1m", "evry: 1m",
			[]string{"stopWhen.0.evry: unknown key", `did you mean "every"?`}},
		{"a check both command and query", "{name: smoke, command: ./smoke.sh}", "{name: smoke, command: ./smoke.sh, prometheus: {url: http://p:9090, query: up}}",
			[]string{"checks.1: a check is a command or a prometheus query, not both"}},
		{"a zero interval", "every: 1m", "every: 0s",
			[]string{"stopWhen.0.every: every must be more than 0"}},
		{"a zero timeout", "timeout: 5s", "timeout: 0s",
			[]string{"stopWhen.1.timeout: timeout must be more than 0", "config/config.yaml:16:22"}},
		{"a stopWhen query that does not parse", `query: 'ALERTS{alertstate="firing"}'`, `query: 'sum(('`,
			[]string{`sequence.environments.1.rollout.stopWhen.1.prometheus.query: the PromQL "sum((": 1:6: parse error: unclosed left parenthesis`, "config/config.yaml:15:"}},
		{"a check query that does not parse", "query: 'rate(errors_total[5m]) > 1'", "query: 'rate(errors_total[5m] > 1'",
			[]string{`checks.0.prometheus.query: the PromQL "rate(errors_total[5m] > 1"`, "parse error", "config/config.yaml:19:"}},
		{"a range vector is no condition", `query: 'ALERTS{alertstate="firing"}'`, `query: 'up[5m]'`,
			[]string{`stopWhen.1.prometheus.query: the PromQL "up[5m]": the query returns a matrix, not an instant vector`}},
		{"two conditions of one name", "- prometheus: {url: https://prometheus.example.com", "- name: paging\n            prometheus: {url: https://prometheus.example.com",
			[]string{`sequence.environments.1.rollout.stopWhen.1: a second stopWhen condition named "paging" (the first at line 12)`, "config/config.yaml:15:13"}},
		{"two checks of one name", "{name: smoke, command: ./smoke.sh}", "{name: errors, command: ./smoke.sh}",
			[]string{`sequence.environments.1.rollout.checks.1: a second check named "errors" (the first at line 18)`, "config/config.yaml:20:13"}},
		{"a negative grace", "every: 1m", "grace: -1m",
			[]string{`stopWhen.0.grace: "-1m" is not a duration`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			config := strings.Replace(stopConfig, tt.old, tt.new, 1)
			if config == stopConfig {
				t.Fatalf("%q is not in the config", tt.old)
			}
			_, err := fleet.Load(fleetFS(config, nil))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}
