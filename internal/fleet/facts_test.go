package fleet_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/values"
)

// factsInventory runs hub-use1 alone at production/us-east1 (hub), and
// spoke-1 and spoke-2 together at production/eu-west1 (workload).
var factsInventory = map[string]string{
	"hub-use1.yaml": "name: hub-use1\ntype: hub\ntarget: production/us-east1\nlabels: {tier: gold}\nannotations: {example.com/owner: platform}\n",
	"spoke-1.yaml":  "type: workload\ntarget: production/eu-west1\nserver: https://10.0.0.1:6443\nhub: hub-use1\nlabels: {tier: silver}\n",
	"spoke-2.yaml":  "type: workload\ntarget: production/eu-west1\nserver: https://10.0.0.2:6443\nhub: hub-use1\n",
}

func withFacts(config string) string { return config + "clusters: {facts: true}\n" }

func TestClusterFactsInValues(t *testing.T) {
	tests := []struct {
		name, config, clusterType, target string
		want                              string // cluster: and clusters: as YAML
	}{
		{"without facts the inventory is not in the values", inventoryConfig, "hub", "production/us-east1", `cluster:
  environment: production
  region: us-east1
  revision: 826fa76d08fc2ce87c863196e52d5a4fa9259a82
`},
		{"one cluster: its file in cluster: and in clusters:", withFacts(inventoryConfig), "hub", "production/us-east1", `cluster:
  environment: production
  region: us-east1
  revision: 826fa76d08fc2ce87c863196e52d5a4fa9259a82
  name: hub-use1
  type: hub
  target: production/us-east1
  labels:
    tier: gold
  annotations:
    example.com/owner: platform
clusters:
- name: hub-use1
  type: hub
  target: production/us-east1
  labels:
    tier: gold
  annotations:
    example.com/owner: platform
`},
		{"two clusters: only clusters:, the name set from the file name", withFacts(inventoryConfig), "workload", "production/eu-west1", `cluster:
  environment: production
  region: eu-west1
  revision: v1.4.0
clusters:
- name: spoke-1
  type: workload
  target: production/eu-west1
  server: https://10.0.0.1:6443
  hub: hub-use1
  labels:
    tier: silver
- name: spoke-2
  type: workload
  target: production/eu-west1
  server: https://10.0.0.2:6443
  hub: hub-use1
`},
		{"no cluster: an empty list", withFacts(inventoryConfig), "workload", "integration/us-east1", `cluster:
  environment: integration
  region: us-east1
  revision: main
clusters: []
`},
		{"node values reach every target under the node, deeper first", strings.Replace(strings.Replace(inventoryConfig,
			"promotion: manual", "promotion: manual\n      values: {apiDomain: prod.example.com, tier: {cpu: 2, mem: 4}}", 1),
			"revision: {workload: v1.4.0}", "revision: {workload: v1.4.0}\n          values: {tier: {mem: 8}}", 1), "hub", "production/eu-west1", `cluster:
  environment: production
  region: eu-west1
  revision: 826fa76d08fc2ce87c863196e52d5a4fa9259a82
  apiDomain: prod.example.com
  tier:
    cpu: 2
    mem: 8
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := fleet.Load(fleetFS(tt.config, factsInventory))
			if err != nil {
				t.Fatal(err)
			}
			v, err := f.TargetValues(f.ClusterType(tt.clusterType), f.Config.Find(strings.Split(tt.target, "/")))
			if err != nil {
				t.Fatal(err)
			}
			head := values.NewMap(v.Pos)
			for _, k := range []string{"cluster", "clusters"} {
				if kv := v.Get(k); kv != nil {
					head.Set(k, kv)
				}
			}
			if diff := cmp.Diff(tt.want, string(values.Encode(head))); diff != "" {
				t.Errorf("values (-want +got):\n%s", diff)
			}
		})
	}
}

func TestClusterFactsKeepTheirPositions(t *testing.T) {
	f, err := fleet.Load(fleetFS(withFacts(inventoryConfig), factsInventory))
	if err != nil {
		t.Fatal(err)
	}
	v, err := f.TargetValues(f.ClusterType("hub"), f.Config.Find([]string{"production", "us-east1"}))
	if err != nil {
		t.Fatal(err)
	}
	got := v.Lookup("cluster", "labels", "tier").Pos
	if want := (values.Pos{File: "config/clusters/hub-use1.yaml", Line: 4, Col: 16}); got != want {
		t.Errorf("cluster.labels.tier set at %v, want %v", got, want)
	}
}

func TestClusterFactsErrors(t *testing.T) {
	tests := []struct {
		name   string
		config string
		files  map[string]string
		want   []string
	}{
		{"facts is a boolean", inventoryConfig + "clusters: {facts: yes please}\n", nil,
			[]string{"clusters.facts:", "expected a boolean"}},
		{"an unknown key", inventoryConfig + "clusters: {fact: true}\n", nil,
			[]string{"clusters.fact: unknown key", `did you mean "facts"?`}},
		{"runtime keys are a list", inventoryConfig + "clusters: {runtime: {annotations: aws_account_id}}\n", nil,
			[]string{"clusters.runtime.annotations:", "expected a list"}},
		{"a runtime key twice", inventoryConfig + "clusters: {runtime: {labels: [a, a]}}\n", nil,
			[]string{"clusters.runtime.labels.1:", `key "a" is listed twice`}},
		{"a dimension whose key is a fact's", strings.Replace(withFacts(inventoryConfig), "dimensions: [environments, regions]",
			"dimensions: [environments, {name: regions, singular: server}]", 1), nil,
			[]string{"clusters.facts:", "the dimension regions's key cluster.server is also a cluster fact's", "singular"}},
		{"node values setting a dimension", strings.Replace(inventoryConfig, "promotion: manual", "promotion: manual\n      values: {region: x}", 1), nil,
			[]string{"sequence.environments.1.values.region:", `key "region" is the dimension regions's`, "config/config.yaml:9:16"}},
		{"node values setting the revision", strings.Replace(inventoryConfig, "promotion: manual", "promotion: manual\n      values: {revision: x}", 1), nil,
			[]string{"sequence.environments.1.values.revision:", `key "revision" is strata's`}},
		{"node values setting a fact", strings.Replace(inventoryConfig, "promotion: manual", "promotion: manual\n      values: {labels: {}}", 1), nil,
			[]string{"sequence.environments.1.values.labels:", "cluster fact's"}},
		{"node values are a mapping", strings.Replace(inventoryConfig, "promotion: manual", "promotion: manual\n      values: [a]", 1), nil,
			[]string{"sequence.environments.1.values:", "expected a mapping"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := fleet.Load(fleetFS(tt.config, tt.files))
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

func TestComponentCannotSetClustersWithFacts(t *testing.T) {
	fsys := fleetFS(withFacts(inventoryConfig), factsInventory)
	fsys["config/hub/defaults.yaml"].Data = []byte("applications: {default: {project: default}}\nclusters: {default: {}}\n")
	fsys["config/hub/argocd/values.yaml"].Data = []byte("applications: {argocd: {destination: {namespace: argocd}}}\nclusters: {a: {}}\n")
	f, err := fleet.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.TargetValues(f.ClusterType("hub"), f.Config.Find([]string{"production", "us-east1"}))
	if err == nil || !strings.Contains(err.Error(), `component "argocd" sets clusters:`) || !strings.Contains(err.Error(), "config/hub/argocd/values.yaml:2:1") {
		t.Errorf("TargetValues = %v, want the component's clusters: refused at its line", err)
	}
}

func TestClusterFilesOnlyWithFacts(t *testing.T) {
	for _, facts := range []bool{false, true} {
		config := inventoryConfig
		if facts {
			config = withFacts(config)
		}
		f, err := fleet.Load(fleetFS(config, factsInventory))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, file := range f.ClusterFiles("workload", f.Config.Find([]string{"production", "eu-west1"})) {
			got = append(got, file.Path)
		}
		var want []string
		if facts {
			want = []string{"config/clusters/spoke-1.yaml", "config/clusters/spoke-2.yaml"}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("facts %v: ClusterFiles (-want +got):\n%s", facts, diff)
		}
	}
}
