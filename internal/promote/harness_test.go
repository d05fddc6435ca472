package promote

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/strata-fleet/strata/internal/fleet"
)

// The test harness: small fleets built from a config.yaml and a map of
// files, in memory (fstest.MapFS) for Prepare, or in a temporary directory
// for Apply.

// toyConfig is the reference's toy configuration (create_test_config in
// hack/test_promote.py).
const toyConfig = `dimensions: [environments, sectors, regions]
sequence:
  environments:
    - name: env1
      sectors:
        - name: sector1
          regions: [{name: region1}, {name: region2}]
        - name: sector2
          regions: [{name: region1}]
    - name: env2
      sectors:
        - name: sector1
          regions: [{name: region1}]
cluster_types: [{name: management-cluster}]
`

// realConfig is the reference's "realistic" configuration
// (create_real_test_config in hack/test_promote.py): seed 003's shape
// without gates.
const realConfig = `dimensions: [environments, sectors, regions]
sequence:
  environments:
    - name: integration
      sectors:
        - name: int-sector-1
          regions: [{name: us-central1}, {name: europe-west1}]
        - name: int-sector-2
          regions: [{name: us-central1}]
    - name: stage
      sectors:
        - name: stage-sector-1
          regions: [{name: us-east1}]
        - name: stage-sector-2
          regions: [{name: europe-west1}]
    - name: production
      sectors:
        - name: prod-canary
          regions: [{name: us-east1}]
        - name: prod-sector-1
          regions: [{name: us-east1}, {name: europe-east1}]
cluster_types: [{name: management-cluster}]
`

// seedConfig is seed 003's config/config.yaml as the reference repository
// has it (branch generator), gates included. Its infra-cluster type gets an
// empty directory with defaults from newFiles.
const seedConfig = `# Fleet dimensional hierarchy
dimensions:
  - environments
  - sectors
  - regions

# Deployment sequence and promotion rules
sequence:
  environments:
    - name: integration
      sectors:
        - name: int-sector-1
          promotion: automated
          regions:
            - name: us-central1
            - name: europe-west1
        - name: int-sector-2
          promotion: automated
          regions:
            - name: us-central1
    - name: stage
      promotion: manual  # Gate between environments
      sectors:
        - name: stage-sector-1
          promotion: automated
          regions:
            - name: us-east1
            - name: europe-west1
        - name: stage-sector-2
          promotion: automated
          regions:
            - name: ap-east1
    - name: production
      promotion: manual
      sectors:
        - name: prod-canary
          promotion: automated
          regions:
            - name: us-east1
        - name: prod-sector-1
          promotion: manual
          regions:
            - name: us-east1
            - name: europe-east1

# Cluster type definitions
cluster_types:
  - name: management-cluster
  - name: infra-cluster
`

const (
	ct     = "management-cluster"
	app    = "test-app"
	appDir = "config/management-cluster/test-app"
	// valuesPath is test-app's values.yaml.
	valuesPath  = appDir + "/values.yaml"
	historyPath = appDir + "/history.yaml"
	// testPatch is what patchesAt writes in every patch file. The
	// reference's create_test_filesystem writes "test: patch"; strata
	// checks that a promotion keeps every target's values valid, and a
	// top-level key other than a section (applications, applicationsets)
	// cannot be folded into values.yaml, so the patch changes a field of
	// test-app instead.
	testPatch = `applications:
  test-app:
    source:
      targetRevision: "2.0.0"
`
)

const defaultsYAML = `applications:
  default:
    project: default
    destination:
      server: https://kubernetes.default.svc
`

const valuesYAML = `applications:
  test-app:
    source:
      repoURL: https://charts.example.com
      chart: test-app
      targetRevision: "1.0.0"
`

// newFiles returns the files of a fleet with configYAML, the cluster types'
// defaults, test-app's values.yaml, and files (which may replace any of
// them; an empty string removes a file).
func newFiles(configYAML string, files map[string]string) map[string]string {
	out := map[string]string{
		fleet.ConfigPath: configYAML,
		"config/management-cluster/defaults.yaml": defaultsYAML,
		valuesPath: valuesYAML,
	}
	if strings.Contains(configYAML, "infra-cluster") {
		out["config/infra-cluster/defaults.yaml"] = defaultsYAML
	}
	for k, v := range files {
		if v == "" {
			delete(out, k)
			continue
		}
		out[k] = v
	}
	return out
}

// newFleet loads a fleet held in memory.
func newFleet(t testing.TB, configYAML string, files map[string]string) *fleet.Fleet {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, data := range newFiles(configYAML, files) {
		fsys[name] = &fstest.MapFile{Data: []byte(data), Mode: 0o644}
	}
	f, err := fleet.Load(fsys)
	if err != nil {
		t.Fatalf("loading the test fleet: %v", err)
	}
	return f
}

// patchesAt returns test-app's patch-001.yaml at each location (node IDs),
// each holding testPatch, as the reference's create_test_filesystem does.
func patchesAt(locations ...string) map[string]string {
	out := map[string]string{}
	for _, l := range locations {
		out[patchFile(l, "patch-001")] = testPatch
	}
	return out
}

// patchFile is the path of test-app's patch called name at location.
func patchFile(location, name string) string {
	return appDir + "/" + location + "/" + name + ".yaml"
}

// with returns the union of file maps, later ones winning.
func with(maps ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range maps {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// writeTree writes a fleet's files under dir.
func writeTree(t testing.TB, dir, configYAML string, files map[string]string) {
	t.Helper()
	for name, data := range newFiles(configYAML, files) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// loadDir loads the fleet in dir.
func loadDir(t testing.TB, dir string) *fleet.Fleet {
	t.Helper()
	f, err := fleet.Load(os.DirFS(dir))
	if err != nil {
		t.Fatalf("loading %s: %v", dir, err)
	}
	return f
}

// readTree returns every file under dir (slash paths -> content) and every
// directory (path + "/" -> "").
func readTree(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		data, err := os.ReadFile(p)
		out[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// locations returns the node IDs where test-app has the patch called name
// in the tree, in path order.
func locations(tree map[string]string, name string) []string {
	var out []string
	for p := range tree {
		if strings.HasPrefix(p, appDir+"/") && strings.HasSuffix(p, "/"+name+".yaml") {
			out = append(out, strings.TrimSuffix(strings.TrimPrefix(p, appDir+"/"), "/"+name+".yaml"))
		}
	}
	slices.Sort(out)
	return out
}

// opList is a plan's operations as "write PATH" and "remove PATH".
func opList(p *Plan) []string {
	var out []string
	for _, op := range p.Ops {
		out = append(out, op.Kind+" "+op.Path)
	}
	return out
}

// prepare runs Prepare for test-app's patch-001 with opts' other fields.
func prepare(t testing.TB, f *fleet.Fleet, opts Options) (*Plan, error) {
	t.Helper()
	if opts.ClusterType == "" {
		opts.ClusterType = ct
	}
	if opts.Component == "" {
		opts.Component = app
	}
	if opts.Patch == "" {
		opts.Patch = "patch-001"
	}
	return Prepare(f, opts)
}

// mustPrepare is prepare that fails the test on an error.
func mustPrepare(t testing.TB, f *fleet.Fleet, opts Options) *Plan {
	t.Helper()
	p, err := prepare(t, f, opts)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	return p
}

// testOps performs FileOps on dir, with the journal in a directory next to
// it (the local state of a checkout, outside it).
func testOps(dir string) DirOps { return DirOps{Root: dir, State: dir + ".state"} }

// applyAll applies p and finishes the promotion, as promote --no-render
// does.
func applyAll(ops FileOps, p *Plan) error {
	if err := Apply(ops, p); err != nil {
		return err
	}
	return Finish(ops)
}
