package fleet_test

// The behaviours asserted by the reference generator's tests
// (patjlm/gcp-hcp-apps, branch generator: hack/test_generate.py and the
// configuration and walk parts of hack/test_utils.py), ported to strata.
// Where strata deliberately differs from the reference (an error where the
// reference is silent or guesses), the test asserts strata's behaviour and
// its name says so.

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/values"
)

// repo builds a fleet repository in memory. A value of "/" makes an empty
// directory.
func repo(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, data := range files {
		if data == "/" {
			fsys[name] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
			continue
		}
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	return fsys
}

func load(t *testing.T, files map[string]string) *fleet.Fleet {
	t.Helper()
	f, err := fleet.Load(repo(files))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return f
}

func loadErr(t *testing.T, files map[string]string) error {
	t.Helper()
	_, err := fleet.Load(repo(files))
	if err == nil {
		t.Fatalf("Load succeeded, want an error")
	}
	return err
}

// wantFileError checks that err is (or joins) a *values.Error at file whose
// message contains msg.
func wantFileError(t *testing.T, err error, file, msg string) {
	t.Helper()
	var e *values.Error
	if !errors.As(err, &e) {
		t.Fatalf("error is not a *values.Error: %v", err)
	}
	if e.Pos.File != file {
		t.Errorf("error points at %q, want %q:\n%v", e.Pos.File, file, err)
	}
	if !strings.Contains(err.Error(), msg) {
		t.Errorf("error does not say %q:\n%v", msg, err)
	}
}

// threeLevels is the dimensions line of most tests.
const threeLevels = "dimensions: [environments, sectors, regions]\n"

const mcType = "cluster_types: [{name: management-cluster}]\n"

// mcFleet returns a repository with one management-cluster type whose
// sequence has integration and production, plus files.
func mcFleet(files map[string]string) map[string]string {
	out := map[string]string{
		"config/config.yaml": threeLevels + `sequence:
  environments:
  - name: integration
    sectors:
    - name: int-sector-1
      regions: [{name: us-central1}, {name: europe-west1}]
  - name: production
    sectors:
    - name: prod-sector-1
      regions: [{name: us-east1}]
` + mcType,
		"config/management-cluster/defaults.yaml": "applications:\n  default:\n    project: default\n",
	}
	for k, v := range files {
		out[k] = v
	}
	return out
}

func targetIDs(f *fleet.Fleet) []string {
	ids := []string{}
	for _, n := range f.Targets {
		ids = append(ids, n.ID())
	}
	return ids
}

// --- Target discovery (TestTargetDiscovery, TestIntegration, TestValidation) ---

func TestReferenceTargetDiscovery(t *testing.T) {
	tests := []struct {
		name     string
		sequence string
		want     []string
	}{
		{
			name: "one environment, one sector, two regions make two targets",
			sequence: `sequence:
  environments:
  - name: integration
    sectors:
    - name: int-sector-1
      regions: [{name: us-central1}, {name: europe-west1}]
`,
			want: []string{"integration/int-sector-1/us-central1", "integration/int-sector-1/europe-west1"},
		},
		{
			name: "each environment contributes its own targets",
			sequence: `sequence:
  environments:
  - name: integration
    sectors: [{name: int-sector-1, regions: [{name: us-central1}]}]
  - name: production
    sectors: [{name: prod-sector-1, regions: [{name: us-east1}]}]
`,
			want: []string{"integration/int-sector-1/us-central1", "production/prod-sector-1/us-east1"},
		},
		{
			name: "realistic sequence gives every full-depth path in rollout order",
			sequence: `sequence:
  environments:
  - name: integration
    sectors:
    - name: int-sector-1
      regions: [{name: us-central1}, {name: europe-west1}]
  - name: production
    sectors:
    - name: prod-sector-1
      regions: [{name: us-east1}, {name: europe-east1}]
`,
			want: []string{
				"integration/int-sector-1/us-central1", "integration/int-sector-1/europe-west1",
				"production/prod-sector-1/us-east1", "production/prod-sector-1/europe-east1",
			},
		},
		{
			name:     "empty sequence gives no targets",
			sequence: "sequence: {}\n",
			want:     []string{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := load(t, map[string]string{
				"config/config.yaml":                      threeLevels + tc.sequence + mcType,
				"config/management-cluster/defaults.yaml": "applications:\n  default: {}\n",
			})
			if diff := cmp.Diff(tc.want, targetIDs(f)); diff != "" {
				t.Errorf("targets (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReferenceTargetPathJoinsNamesWithSlashes(t *testing.T) {
	f := load(t, mcFleet(nil))
	n := f.Config.Find([]string{"integration", "int-sector-1", "us-central1"})
	if n == nil {
		t.Fatal("target integration/int-sector-1/us-central1 not found")
	}
	if got, want := n.ID(), "integration/int-sector-1/us-central1"; got != want {
		t.Errorf("ID() = %q, want %q", got, want)
	}
}

// --- Walk order (test_utils.py TestWalkDimensions) ---

func TestReferenceWalkIsPreOrder(t *testing.T) {
	tests := []struct {
		name, dimensions, sequence string
		want                       []string
	}{
		{
			name:       "one dimension: nodes in list order",
			dimensions: "dimensions: [environments]\n",
			sequence:   "sequence:\n  environments: [{name: env1}, {name: env2}]\n",
			want:       []string{"env1", "env2"},
		},
		{
			name:       "two dimensions: a node comes before its children",
			dimensions: "dimensions: [environments, sectors]\n",
			sequence:   "sequence:\n  environments:\n  - name: env1\n    sectors: [{name: sector1}, {name: sector2}]\n",
			want:       []string{"env1", "env1/sector1", "env1/sector2"},
		},
		{
			name:       "three dimensions",
			dimensions: threeLevels,
			sequence: "sequence:\n  environments:\n  - name: env1\n    sectors:\n    - name: sector1\n" +
				"      regions: [{name: region1}, {name: region2}]\n",
			want: []string{"env1", "env1/sector1", "env1/sector1/region1", "env1/sector1/region2"},
		},
		{
			name:       "a whole environment is walked before the next one",
			dimensions: threeLevels,
			sequence: `sequence:
  environments:
  - name: integration
    sectors: [{name: int-sector-1, regions: [{name: us-central1}]}]
  - name: production
    sectors:
    - name: prod-sector-1
      regions: [{name: us-east1}, {name: europe-east1}]
`,
			want: []string{
				"integration", "integration/int-sector-1", "integration/int-sector-1/us-central1",
				"production", "production/prod-sector-1", "production/prod-sector-1/us-east1", "production/prod-sector-1/europe-east1",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := load(t, map[string]string{
				"config/config.yaml":                      tc.dimensions + tc.sequence + mcType,
				"config/management-cluster/defaults.yaml": "applications:\n  default: {}\n",
			})
			var got []string
			f.Config.Root.Walk(func(n *fleet.Node) { got = append(got, n.ID()) })
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("walk (-want +got):\n%s", diff)
			}
		})
	}
}

// The reference walks nothing and renders nothing for these; strata says
// what is wrong instead.
func TestReferenceWalkOfBadDimensionsIsAnErrorInStrata(t *testing.T) {
	tests := []struct{ name, config, msg string }{
		{
			name:   "a sequence keyed by an undeclared dimension is an error (reference: no nodes)",
			config: "dimensions: [missing_key]\nsequence:\n  environments: [{name: env1}]\n" + mcType,
			msg:    "expected key missing_key",
		},
		{
			name:   "an empty dimensions list is an error (reference: no nodes)",
			config: "dimensions: []\nsequence:\n  environments: [{name: env1}]\n" + mcType,
			msg:    "dimensions",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := loadErr(t, map[string]string{"config/config.yaml": tc.config})
			wantFileError(t, err, "config/config.yaml", tc.msg)
		})
	}
}

// --- config.yaml (TestConfigLoading, TestValidation) ---

func TestReferenceConfigIsReadAsWritten(t *testing.T) {
	f := load(t, map[string]string{
		"config/config.yaml": `dimensions: [env, sector, region]
sequence:
  env:
  - name: test
    sector: [{name: s1, region: [{name: r1}]}]
cluster_types: [{name: test-cluster}]
`,
		"config/test-cluster/defaults.yaml": "applications:\n  default: {}\n",
	})
	var dims, singular, types []string
	for _, d := range f.Config.Dimensions {
		dims = append(dims, d.Name)
		singular = append(singular, d.Singular)
	}
	for _, ct := range f.Config.ClusterTypes {
		types = append(types, ct.Name)
	}
	if diff := cmp.Diff([]string{"env", "sector", "region"}, dims); diff != "" {
		t.Errorf("dimensions (-want +got):\n%s", diff)
	}
	// The values key of a dimension is its name without trailing "s", as
	// the reference's rstrip('s').
	if diff := cmp.Diff([]string{"env", "sector", "region"}, singular); diff != "" {
		t.Errorf("singular names (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"test-cluster"}, types); diff != "" {
		t.Errorf("cluster types (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"test/s1/r1"}, targetIDs(f)); diff != "" {
		t.Errorf("targets (-want +got):\n%s", diff)
	}
}

func TestReferenceConfigErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		file  string // "" when the error is not about a file's content
		msg   string
	}{
		{
			name:  "missing config.yaml is an error",
			files: map[string]string{"README.md": "not a fleet\n"},
			msg:   "config/config.yaml not found",
		},
		{
			name:  "config.yaml without a sequence is an error",
			files: map[string]string{"config/config.yaml": threeLevels + mcType},
			file:  "config/config.yaml",
			msg:   "missing key sequence",
		},
		{
			// The reference fails with KeyError: 'sequence'; strata names the
			// stray key first.
			name:  "config.yaml with only other keys is an error naming the unknown key",
			files: map[string]string{"config/config.yaml": "other_key: value\n"},
			file:  "config/config.yaml",
			msg:   "other_key: unknown key",
		},
		{
			// Deliberate difference: the reference drops a node that lacks a
			// deeper level (it yields no target under it); strata refuses it.
			name: "a sequence node missing a deeper level is an error (reference: no target)",
			files: map[string]string{"config/config.yaml": "dimensions: [env, sector, region]\n" +
				"sequence:\n  env: [{name: test}]\ncluster_types: [{name: test-cluster}]\n"},
			file: "config/config.yaml",
			msg:  "has no sector",
		},
		{
			name:  "malformed config.yaml is an error with its line",
			files: map[string]string{"config/config.yaml": "invalid: yaml: content: [unclosed"},
			file:  "config/config.yaml",
			msg:   "invalid YAML",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := loadErr(t, tc.files)
			if tc.file == "" {
				if !strings.Contains(err.Error(), tc.msg) {
					t.Errorf("error does not say %q:\n%v", tc.msg, err)
				}
				return
			}
			wantFileError(t, err, tc.file, tc.msg)
		})
	}
}

// --- Cluster types and components (TestApplicationDiscovery, TestValidation) ---

func TestReferenceComponentDiscovery(t *testing.T) {
	f := load(t, mcFleet(map[string]string{
		// Empty values.yaml files, as the reference's tests touch them: found
		// at discovery, refused at merge (see below).
		"config/management-cluster/prometheus/values.yaml":   "",
		"config/management-cluster/cert-manager/values.yaml": "",
		// An empty directory is ignored.
		"config/management-cluster/incomplete-app": "/",
	}))
	ct := f.ClusterType("management-cluster")
	var got []string
	for _, c := range ct.Components {
		got = append(got, c.Name)
	}
	if diff := cmp.Diff([]string{"cert-manager", "prometheus"}, got); diff != "" {
		t.Errorf("components (-want +got):\n%s", diff)
	}
	if c := ct.Component("incomplete-app"); c != nil {
		t.Errorf("the empty directory incomplete-app is a component")
	}
}

func TestReferenceComponentAndClusterTypeErrors(t *testing.T) {
	t.Run("a directory with files but no values.yaml is an error (reference: silently skipped)", func(t *testing.T) {
		err := loadErr(t, mcFleet(map[string]string{
			"config/management-cluster/incomplete-app/metadata.yaml": "owner: team-a\n",
		}))
		wantFileError(t, err, "config/management-cluster/incomplete-app/values.yaml", "no values.yaml")
	})

	t.Run("an empty values.yaml is an error at merge", func(t *testing.T) {
		f := load(t, mcFleet(map[string]string{"config/management-cluster/prometheus/values.yaml": ""}))
		ct := f.ClusterType("management-cluster")
		_, err := f.TargetValues(ct, f.Targets[0])
		wantFileError(t, err, "config/management-cluster/prometheus/values.yaml", "values.yaml is empty")
	})

	t.Run("malformed YAML in values.yaml is an error naming the file and line", func(t *testing.T) {
		f := load(t, mcFleet(map[string]string{
			"config/management-cluster/prometheus/values.yaml": "invalid: yaml: content: [unclosed",
		}))
		ct := f.ClusterType("management-cluster")
		_, err := f.TargetValues(ct, f.Targets[0])
		wantFileError(t, err, "config/management-cluster/prometheus/values.yaml", "invalid YAML")
		var e *values.Error
		if errors.As(err, &e) && e.Pos.Line != 1 {
			t.Errorf("error at line %d, want line 1", e.Pos.Line)
		}
	})

	t.Run("an empty component directory is not a component (reference: asking for it fails)", func(t *testing.T) {
		f := load(t, mcFleet(map[string]string{"config/management-cluster/prometheus": "/"}))
		if c := f.ClusterType("management-cluster").Component("prometheus"); c != nil {
			t.Errorf("empty directory prometheus is a component")
		}
	})

	t.Run("a declared cluster type without a directory is an error", func(t *testing.T) {
		files := mcFleet(nil)
		delete(files, "config/management-cluster/defaults.yaml")
		err := loadErr(t, files)
		wantFileError(t, err, "config/config.yaml", `cluster type "management-cluster" has no directory`)
	})

	t.Run("an undeclared cluster type is not found", func(t *testing.T) {
		f := load(t, mcFleet(nil))
		if ct := f.ClusterType("nonexistent-cluster-type"); ct != nil {
			t.Errorf("ClusterType(nonexistent-cluster-type) = %v, want nil", ct)
		}
	})

	t.Run("missing defaults.yaml is an error (reference test: empty defaults are used)", func(t *testing.T) {
		files := mcFleet(map[string]string{
			"config/management-cluster/prometheus/values.yaml": "applications:\n  prometheus:\n    source: {targetRevision: 77.9.1}\n",
		})
		delete(files, "config/management-cluster/defaults.yaml")
		err := loadErr(t, files)
		wantFileError(t, err, "config/management-cluster/defaults.yaml", "defaults.yaml")
	})
}
