package fleet_test

import (
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/fleet"
)

// atConfig declares the hub at production only and workload everywhere.
const atConfig = `dimensions: [environments, regions]
sequence:
  environments:
    - name: integration
      regions: [us-east1, eu-west1]
    - name: production
      regions: [us-east1, eu-west1]
cluster_types:
  - name: hub
    at: [production/us-east1]
  - workload
`

func TestClusterTypeAt(t *testing.T) {
	f, err := fleet.Load(fleetFS(atConfig, nil))
	if err != nil {
		t.Fatal(err)
	}
	ids := func(ns []*fleet.Node) string {
		var out []string
		for _, n := range ns {
			out = append(out, n.ID())
		}
		return strings.Join(out, " ")
	}
	hub, wl := f.ClusterType("hub"), f.ClusterType("workload")
	if got := ids(hub.Targets); got != "production/us-east1" {
		t.Errorf("hub targets = %q", got)
	}
	if got := ids(wl.Targets); got != ids(f.Targets) {
		t.Errorf("workload targets = %q, want every target", got)
	}
	for _, tc := range []struct {
		node string
		want bool
	}{
		{"production", true},            // above the declared node
		{"production/us-east1", true},   // the node itself
		{"production/eu-west1", false},  // a sibling
		{"integration", false},          // another branch
		{"integration/us-east1", false}, // under another branch
	} {
		if got := hub.ExistsAt(f.Config.Find(strings.Split(tc.node, "/"))); got != tc.want {
			t.Errorf("hub.ExistsAt(%s) = %v, want %v", tc.node, got, tc.want)
		}
	}
}

func TestClusterTypeAtErrors(t *testing.T) {
	for _, tc := range []struct {
		name, at string
		files    map[string]string // under config/clusters/
		want     []string
	}{
		{"unknown node", "[production/eu-wst1]", nil,
			[]string{`cluster_types.0.at.0: "production/eu-wst1" names no node of the sequence: no region "eu-wst1" under "production"`, "config/config.yaml:10:10", `did you mean "eu-west1"?`}},
		{"unknown first node", "[prodution]", nil,
			[]string{`no environment "prodution"`, `did you mean "production"?`}},
		{"under a target", "[production/us-east1/x]", nil,
			[]string{`"production/us-east1" is a full-depth target: nothing is under it`}},
		{"not a list", "production", nil,
			[]string{"cluster_types.0.at: expected a non-empty list of node paths, got \"production\""}},
		{"empty", "[]", nil,
			[]string{"expected a non-empty list of node paths, got an empty list"}},
		{"overlap", "[production, production/us-east1]", nil,
			[]string{`node "production/us-east1" overlaps another node of at:`}},
		{"cluster elsewhere", "[production/us-east1]", map[string]string{"hub-2.yaml": "type: hub\ntarget: integration/us-east1\n"},
			[]string{`target: cluster type "hub" does not exist at "integration/us-east1"`, "config/clusters/hub-2.yaml:2:9", "config/config.yaml:10:9", `"hub" exists only under production/us-east1`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := strings.Replace(atConfig, "[production/us-east1]", tc.at, 1)
			_, err := fleet.Load(fleetFS(cfg, tc.files))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestClusterTypeAtPatch(t *testing.T) {
	fsys := fleetFS(atConfig, nil)
	fsys["config/hub/argocd/integration/patch-001.yaml"] = fsys["config/hub/argocd/values.yaml"]
	_, err := fleet.Load(fsys)
	for _, w := range []string{`cluster type "hub" does not exist at "integration": this file applies to no target`,
		"config/hub/argocd/integration/patch-001.yaml:1:1", "config/config.yaml:10:9"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q:\n%v", w, err)
		}
	}
}
