package fleet_test

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/values"
)

// loadSeeds are config.yaml documents: valid ones of several shapes and
// broken ones.
var loadSeeds = []string{
	threeLevels + `sequence:
  environments:
  - name: integration
    sectors:
    - name: int-sector-1
      promotion: automated
      regions: [{name: us-central1}, {name: europe-west1}]
  - name: production
    promotion: manual
    revision: v1.2.0
    sectors:
    - name: prod-sector-1
      revision: {management-cluster: abc1234}
      regions: [us-east1]
` + mcType + "promotion: {level: sectors}\nrepository: {url: https://git.example.com/fleet, revision: main}\n",
	"dimensions: [environments]\nsequence:\n  environments: [integration, production]\n" + mcType,
	"dimensions: [{name: tenants, singular: tenant}, environments]\nsequence:\n  tenants:\n  - name: acme\n    environments: [dev]\n" + mcType,
	threeLevels + "sequence: {}\n" + mcType,
	threeLevels + "sequence:\n" + mcType,
	threeLevels + mcType,
	"other_key: value\n",
	"dimensions: []\n",
	"- a\n- b\n",
	"",
	"invalid: yaml: content: [unclosed",
	"dimensions: [environments]\nsequence:\n  environments: [{name: ..}]\n" + mcType,
	"dimensions: [environments]\nsequence:\n  environments: [{name: a}, {name: a}]\ncluster_types: [management-cluster, management-cluster]\n",
	"dimensions: [environments]\nsequence:\n  environments: [integration]\n" + mcType +
		"notifications:\n- {name: chat, slack: {urlFile: /etc/strata/slack}, events: [failed, gated]}\n- {webhook: {url: https://h.example.com/x}, timeout: 3s}\n",
	"dimensions: [environments]\nsequence:\n  environments: [integration]\n" + mcType + "notifications: [{webhook: {url: x, urlFile: y}, events: []}]\n",
	// Cluster facts, node values and named revisions (facts.go, revisions.go).
	"dimensions: [environments]\nclusters: {facts: true, runtime: {labels: [tier], annotations: [aws_account_id]}}\n" +
		"revisions: {charts: {}, addons: {label: addons_release, default: v1}}\n" +
		"sequence:\n  environments:\n  - name: integration\n    values: {domain: int.example.com, sizes: {api: 2}}\n" +
		"  - name: production\n    revision: ops-stable\n    revisions: {charts: {management-cluster: abc1234}, addons: v2}\n" + mcType,
	"dimensions: [environments]\nclusters: {facts: true}\nsequence:\n  environments:\n  - name: integration\n    values: {name: x}\n" + mcType,
	"dimensions: [environments]\nrevisions: {charts: []}\nsequence:\n  environments:\n  - name: integration\n    revisions: {chart: v1}\n" + mcType,
	// Charts by directory and the global layer (charts.go).
	"dimensions: [environments]\nsequence:\n  environments: [integration, production]\n" + mcType +
		"charts:\n- {dir: charts/{clusterType}, application: {source: {path: '{path}'}, destination: {namespace: '{chart}'}}}\n" +
		"- {dir: charts/shared, clusterTypes: [management-cluster]}\nglobal: true\n",
	"dimensions: [environments]\nsequence:\n  environments: [integration]\n" + mcType + "charts: [{dir: charts/{clusterType}/../x}]\nglobal: yes\n",
	"dimensions: [environments]\nsequence:\n  environments: [integration]\n" + mcType + "charts: [{dir: charts/shared, clusterTypes: [other]}, {dir: charts/shared}]\n",
}

func FuzzLoad(f *testing.F) {
	for _, s := range loadSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, config []byte) {
		fsys := fstest.MapFS{
			"config/config.yaml":                                              {Data: config},
			"config/management-cluster/defaults.yaml":                         {Data: []byte("applications:\n  default:\n    project: default\n")},
			"config/management-cluster/prometheus/values.yaml":                {Data: []byte("applications:\n  prometheus:\n    source: {targetRevision: 1.0.0}\n")},
			"config/management-cluster/prometheus/integration/patch-001.yaml": {Data: []byte("applications:\n  prometheus:\n    source: {targetRevision: 1.1.0}\n")},
			"config/management-cluster/prometheus/integration/patch-002.yaml": {Data: []byte("applications:\n  prometheus:\n    source: {targetRevision: 1.2.0}\n")},
			"config/global/defaults.yaml":                                     {Data: []byte("applications:\n  default:\n    syncPolicy: {automated: {}}\n")},
			"config/global/integration/override.yaml":                         {Data: []byte("applications:\n  default:\n    source: {helm: {valuesObject: {env: int}}}\n")},
			"charts/management-cluster/prometheus/Chart.yaml":                 {Data: []byte("name: prometheus\n")},
			"charts/management-cluster/loki/Chart.yaml":                       {Data: []byte("name: loki\n")},
			"charts/shared/grafana/Chart.yaml":                                {Data: []byte("name: grafana\n")},
		}
		fl, err := fleet.Load(fsys)
		if err != nil {
			checkError(t, err)
			return
		}
		for _, ct := range fl.ClusterTypes {
			for _, n := range fl.Targets {
				if _, err := fl.TargetValues(ct, n); err != nil {
					checkError(t, err)
				}
			}
		}
		if _, err := fl.Conflicts(); err != nil {
			checkError(t, err)
		}
	})
}

// checkError fails unless every error err joins is a *values.Error or
// names a file of the repository.
func checkError(t *testing.T, err error) {
	t.Helper()
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		var ve *values.Error
		if errors.As(e, &ve) {
			if ve.Pos.File == "" {
				t.Errorf("error names no file: %v", e)
			}
			continue
		}
		if !strings.Contains(e.Error(), "config/") {
			t.Errorf("error is a %T that names no file: %v", e, e)
		}
	}
}
