package fleet_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/fleet"
)

// revisionsConfig has the three kinds of named revision: charts pinned per
// node (the regional platform: charts pinned, values live), components
// with a default apart from the root's (ADR-006: root ops-stable,
// components stable), addons chosen per cluster by a label (the EKS
// fleet's release per group).
const revisionsConfig = `dimensions: [environments, regions]
repository: {url: https://git.example.com/fleet.git, revision: main}
revisions:
  charts: {}
  components: {default: stable}
  addons: {label: addons_release, default: v1.0.0}
sequence:
  environments:
    - name: integration
      regions: [us-east1, eu-west1]
    - name: production
      revision: ops-stable
      revisions: {charts: 826fa76d08fc2ce87c863196e52d5a4fa9259a82}
      regions:
        - us-east1
        - name: eu-west1
          revisions: {charts: {workload: v2.0.0}, addons: v1.1.0}
cluster_types: [hub, workload]
`

func TestNamedRevisions(t *testing.T) {
	inventory := map[string]string{
		"hub-use1.yaml":  "type: hub\ntarget: production/us-east1\nlabels: {addons_release: v1.2.0}\n",
		"hub-euw1.yaml":  "type: hub\ntarget: production/eu-west1\n",
		"spoke-int.yaml": "type: workload\ntarget: integration/us-east1\n",
	}
	tests := []struct {
		clusterType, target string
		want                map[string]string // cluster.revision and cluster.revisions.*
	}{
		{"hub", "integration/us-east1", map[string]string{"revision": "main", "charts": "main", "components": "stable", "addons": "v1.0.0"}},
		{"hub", "production/us-east1", map[string]string{"revision": "ops-stable", "charts": "826fa76d08fc2ce87c863196e52d5a4fa9259a82", "components": "stable", "addons": "v1.2.0"}},
		{"hub", "production/eu-west1", map[string]string{"revision": "ops-stable", "charts": "826fa76d08fc2ce87c863196e52d5a4fa9259a82", "components": "stable", "addons": "v1.1.0"}},
		{"workload", "production/eu-west1", map[string]string{"revision": "ops-stable", "charts": "v2.0.0", "components": "stable", "addons": "v1.1.0"}},
	}
	f, err := fleet.Load(fleetFS(revisionsConfig, inventory))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.clusterType+"/"+tt.target, func(t *testing.T) {
			v, err := f.TargetValues(f.ClusterType(tt.clusterType), f.Config.Find(strings.Split(tt.target, "/")))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{"revision": v.Lookup("cluster", "revision").Text}
			revs := v.Lookup("cluster", "revisions")
			for i, k := range revs.Keys {
				got[k] = revs.Vals[i].Text
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("revisions (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("each revision says where it was set", func(t *testing.T) {
		n := f.Config.Find([]string{"production", "us-east1"})
		for name, want := range map[string]string{
			"charts": "config/config.yaml:13:27", "components": "config/config.yaml:5:25", "addons": "config/clusters/hub-use1.yaml:3:26",
		} {
			if _, pos := f.RevisionOf("hub", n, name); pos.String() != want {
				t.Errorf("%s set at %s, want %s", name, pos, want)
			}
		}
	})
	t.Run("a label choosing a revision makes the inventory an input", func(t *testing.T) {
		if got := f.ClusterFiles("hub", f.Config.Find([]string{"production", "us-east1"})); len(got) != 1 {
			t.Errorf("ClusterFiles = %d files, want the one cluster's", len(got))
		}
	})
}

func TestNamedRevisionErrors(t *testing.T) {
	tests := []struct {
		name      string
		config    string
		inventory map[string]string
		want      []string
	}{
		{"a node pins an undeclared name", strings.Replace(revisionsConfig, "revisions: {charts: 826fa", "revisions: {chart: 826fa", 1), nil,
			[]string{"sequence.environments.1.revisions.chart:", `unknown named revision "chart"`, `did you mean "charts"?`}},
		{"a malformed pin", strings.Replace(revisionsConfig, "addons: v1.1.0", "addons: 'v1 1'", 1), nil,
			[]string{"revisions.addons:", `' ' is not allowed`}},
		{"an unknown key of a named revision", strings.Replace(revisionsConfig, "components: {default: stable}", "components: {defualt: stable}", 1), nil, //nolint:misspell // the typo is the test
			[]string{"revisions.components.defualt: unknown key", `did you mean "default"?`}},
		{"a default per cluster type", strings.Replace(revisionsConfig, "components: {default: stable}", "components: {default: {hub: stable}}", 1), nil,
			[]string{"revisions.components.default:", "a default is one revision"}},
		{"a label that is no revision", revisionsConfig, map[string]string{"hub-use1.yaml": "type: hub\ntarget: production/us-east1\nlabels: {addons_release: 'v1..2'}\n"},
			[]string{"labels.addons_release:", "'..' is not allowed", "config/clusters/hub-use1.yaml:3"}},
		{"the clusters of one target disagree", revisionsConfig, map[string]string{
			"a.yaml": "type: hub\ntarget: production/us-east1\nlabels: {addons_release: v1.2.0}\n",
			"b.yaml": "type: hub\ntarget: production/us-east1\nlabels: {addons_release: v1.3.0}\n"},
			[]string{"clusters a and b run target hub/production/us-east1 but their label addons_release chooses revisions v1.2.0 and v1.3.0", "config/clusters/b.yaml:3", "config/clusters/a.yaml:3"}},
		{"a revision named root", strings.Replace(revisionsConfig, "  charts: {}\n", "  charts: {}\n  root: {}\n", 1), nil,
			[]string{"revisions.root:", `cannot be called "root"`, "the root's revision", "config/config.yaml:5:3"}},
		{"a revision named as the Secret's git_revision", strings.Replace(revisionsConfig, "  charts: {}\n", "  git_revision: {}\n", 1), nil,
			[]string{"revisions.git_revision:", `cannot be called "git_revision"`, "config/config.yaml:4:3"}},
		{"a node's values cannot set revisions", strings.Replace(revisionsConfig, "revision: ops-stable", "revision: ops-stable\n      values: {revisions: x}", 1), nil,
			[]string{`key "revisions" is strata's`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := fleet.Load(fleetFS(tt.config, tt.inventory))
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not contain %q:\n%s", w, err)
				}
			}
		})
	}
}
