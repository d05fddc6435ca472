package fleet_test

import (
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/fleet"
)

func TestCheckRevision(t *testing.T) {
	valid := []string{
		"826fa76d08fc2ce87c863196e52d5a4fa9259a82", // full commit hash
		strings.Repeat("ab", 32),                   // SHA-256 repository
		"826fa76",                                  // short hash
		"v1.4.0", "stable", "release-1", "release/2026-02", "main", "HEAD", "feature/add_thing", "1234567",
	}
	for _, s := range valid {
		if err := fleet.CheckRevision(s); err != nil {
			t.Errorf("CheckRevision(%q) = %v, want nil", s, err)
		}
	}
	invalid := map[string]string{
		"": "revision is empty",
		"826fa76d08fc2ce87c863196e52d5a4fa9259a8z":   `'z' is not a hexadecimal digit`,
		"826fa76d08fc2ce87c863196e52d5a4fa9259a82a0": "42 hexadecimal digits",
		"main branch":    `' ' is not allowed`,
		"HEAD~1":         `'~' is not allowed`,
		"v1..2":          "'..' is not allowed",
		"release/":       "empty path component",
		"-rf":            "starts with '-'",
		"a//b":           "empty path component",
		"main.lock":      "ends with .lock",
		"feature/.x":     "starts with '.'",
		"v1.":            "ends with '.'",
		"main@{1}":       "'@{' is not allowed",
		"@":              "@ alone",
		"refs/heads/a:b": `':' is not allowed`,
	}
	for s, want := range invalid {
		err := fleet.CheckRevision(s)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckRevision(%q) = %v, want an error containing %q", s, err, want)
		}
	}
}

// seed003Config is a plain seed 003 config: no repository, no pins.
const seed003Config = `dimensions: [environments, regions]
sequence:
  environments:
    - name: integration
      regions: [us-east1]
cluster_types: [hub, workload]
`

func TestClusterRevisionInValues(t *testing.T) {
	tests := []struct {
		name   string
		config string
		target string
		want   map[string]string // cluster type -> cluster.revision ("" = absent)
	}{
		{"a seed 003 repository has no revision", seed003Config, "integration/us-east1",
			map[string]string{"hub": "", "workload": ""}},
		{"the repository's revision without pins", inventoryConfig, "integration/eu-west1",
			map[string]string{"hub": "main", "workload": "main"}},
		{"a pin is inherited downwards", inventoryConfig, "production/us-east1",
			map[string]string{"hub": "826fa76d08fc2ce87c863196e52d5a4fa9259a82", "workload": "826fa76d08fc2ce87c863196e52d5a4fa9259a82"}},
		{"a pin per cluster type wins for that type only", inventoryConfig, "production/eu-west1",
			map[string]string{"hub": "826fa76d08fc2ce87c863196e52d5a4fa9259a82", "workload": "v1.4.0"}},
		{"pins without repository", strings.Replace(seed003Config, "- name: integration", "- name: integration\n      revision: stable", 1), "integration/us-east1",
			map[string]string{"hub": "stable", "workload": "stable"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := fleet.Load(fleetFS(tt.config, nil))
			if err != nil {
				t.Fatal(err)
			}
			n := f.Config.Find(strings.Split(tt.target, "/"))
			for ct, want := range tt.want {
				v, err := f.TargetValues(f.ClusterType(ct), n)
				if err != nil {
					t.Fatal(err)
				}
				got := v.Lookup("cluster", "revision")
				switch {
				case want == "" && got != nil:
					t.Errorf("%s: cluster.revision = %q, want none", ct, got.Text)
				case want != "" && (got == nil || got.Text != want):
					t.Errorf("%s: cluster.revision = %v, want %q", ct, got, want)
				}
				if keys := v.Get("cluster").Keys; keys[0] != "environment" || keys[1] != "region" {
					t.Errorf("%s: cluster keys = %v, want the dimensions first", ct, keys)
				}
			}
		})
	}
}

func TestRevisionErrors(t *testing.T) {
	tests := []struct {
		name, revision string
		want           []string
	}{
		{"a malformed hash", "826fa76d08fc2ce87c863196e52d5a4fa9259a8z", []string{"sequence.environments.0.revision:", "not a hexadecimal digit", "config/config.yaml:5:17"}},
		{"a short hash YAML reads as octal", "0123456", []string{"YAML reads 0123456 as the number 42798", "quote the revision: '0123456'"}},
		{"a list", "[a, b]", []string{"revision must be a string or a mapping of cluster type to revision"}},
		{"a bad revision for one type", "{workload: 'a b'}", []string{"sequence.environments.0.revision.workload:", `' ' is not allowed`}},
		{"a boolean for one type", "{workload: yes}", []string{"expected a revision, got true", "quoted"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			config := strings.Replace(seed003Config, "- name: integration", "- name: integration\n      revision: "+tt.revision, 1)
			_, err := fleet.Load(fleetFS(config, nil))
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
