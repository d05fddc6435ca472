package output_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/output"
)

// writeFleet writes files under a new temporary directory and returns it.
func writeFleet(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, data := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const prom = "config/management-cluster/prometheus/"

func conflictingFleet() map[string]string {
	return map[string]string{
		"config/config.yaml": "dimensions: [environments, sectors, regions]\n" +
			"sequence:\n  environments:\n  - name: integration\n    sectors:\n    - name: int-sector-1\n      regions: [{name: us-central1}]\n" +
			"cluster_types: [{name: management-cluster}]\n",
		"config/management-cluster/defaults.yaml": "applications:\n  default:\n    project: default\n    destination: {name: in-cluster}\n",
		prom + "values.yaml": "applications:\n  prometheus:\n    source: {repoURL: https://example.com, chart: p, targetRevision: 77.8.0}\n" +
			"    destination: {namespace: monitoring}\n",
		prom + "integration/patch-001.yaml": "applications:\n  prometheus:\n    source: {targetRevision: 77.9.0}\n",
		prom + "integration/patch-002.yaml": "applications:\n  prometheus:\n    source: {targetRevision: 77.9.1}\n",
	}
}

// The reference prints "WARNING: Patch conflict detected" when two patches
// of one level set the same field; strata's Run returns it as a warning,
// with or without --check, and renders anyway (the later patch wins).
func TestRunReportsPatchConflictsAsWarnings(t *testing.T) {
	want := []string{prom + "integration/patch-002.yaml conflicts with " + prom + "integration/patch-001.yaml: " +
		"both set applications.prometheus.source.targetRevision (the later patch wins)"}
	for _, check := range []bool{true, false} {
		root := writeFleet(t, conflictingFleet())
		res, err := output.Run(output.Options{Root: root, FS: os.DirFS(root), Check: check})
		if err != nil {
			t.Fatalf("Run(check=%v): %v", check, err)
		}
		if diff := cmp.Diff(want, res.Warnings); diff != "" {
			t.Errorf("Run(check=%v) warnings (-want +got):\n%s", check, diff)
		}
	}
}

func TestRunWithoutConflictsHasNoWarnings(t *testing.T) {
	files := conflictingFleet()
	files[prom+"integration/patch-002.yaml"] = "applications:\n  prometheus:\n    destination: {namespace: metrics}\n"
	root := writeFleet(t, files)
	res, err := output.Run(output.Options{Root: root, FS: os.DirFS(root), Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("Warnings = %q, want none", res.Warnings)
	}
}

// The reference's save_yaml creates the parent directories of what it
// writes; Run creates rendered/<type>/<env>/<sector>/<region>/templates/.
func TestRunCreatesTargetDirectories(t *testing.T) {
	root := writeFleet(t, conflictingFleet())
	if _, err := output.Run(output.Options{Root: root, FS: os.DirFS(root)}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "rendered", "management-cluster", "integration", "int-sector-1", "us-central1")
	for _, name := range []string{"Chart.yaml", "values.yaml", filepath.Join("templates", "prometheus.yaml")} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s not written: %v", name, err)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "templates", "prometheus.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: prometheus
spec:
  project: default
  source:
    chart: p
    repoURL: https://example.com
    targetRevision: 77.9.1
  destination:
    name: in-cluster
    namespace: monitoring
`
	if diff := cmp.Diff(want, string(data)); diff != "" {
		t.Errorf("templates/prometheus.yaml (-want +got):\n%s", diff)
	}
}

// A first render streams files into a staging directory while targets
// render; when one target fails, neither rendered/ nor the staging
// directory is left behind.
func TestFirstRenderThatFailsLeavesNothing(t *testing.T) {
	files := conflictingFleet()
	files["config/config.yaml"] = "dimensions: [environments, sectors, regions]\n" +
		"sequence:\n  environments:\n  - name: integration\n    sectors:\n    - name: int-sector-1\n      regions: [{name: us-central1}, {name: europe-west1}]\n" +
		"cluster_types: [{name: management-cluster}]\n"
	// Only europe-west1 fails: its override gives the source a list.
	files[prom+"integration/int-sector-1/europe-west1/override.yaml"] = "applications:\n  prometheus:\n    source: [oops]\n"
	root := writeFleet(t, files)
	if _, err := output.Run(output.Options{Root: root, FS: os.DirFS(root)}); err == nil {
		t.Fatal("Run succeeded, want the europe-west1 target to fail")
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "config" {
			t.Errorf("a failed first render left %s in the repository", e.Name())
		}
	}
}

// A first render that succeeds moves the staging directory into place.
func TestFirstRenderWritesEveryFile(t *testing.T) {
	root := writeFleet(t, conflictingFleet())
	res, err := output.Run(output.Options{Root: root, FS: os.DirFS(root)})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Plan.Changes {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(c.Path))); err != nil {
			t.Errorf("%s %s: %v", c.Op, c.Path, err)
		}
	}
	if len(res.Plan.Changes) != 3 {
		t.Errorf("first render created %d files, want 3 (Chart.yaml, values.yaml, one template)", len(res.Plan.Changes))
	}
}

// A run that renders nothing and forgets no target leaves the state file
// as it is: rewriting it would cost a no-op run of a large fleet more than
// checking it.
func TestNoopRunKeepsTheStateFile(t *testing.T) {
	files := conflictingFleet()
	delete(files, prom+"integration/patch-002.yaml")
	root := writeFleet(t, files)
	opts := output.Options{Root: root, FS: os.DirFS(root), StatePath: filepath.Join(t.TempDir(), "render.state")}
	// Where the file system's clock ticks coarsely, runs in the tick of
	// the first one's writes find its stamps racy and render their
	// targets again: until one renders nothing.
	for deadline := time.Now().Add(10 * time.Second); ; {
		res, err := output.Run(opts)
		if err != nil {
			t.Fatal(err)
		}
		if res.Rendered == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("runs still render %d targets after 10s", res.Rendered)
		}
	}
	before, err := os.Stat(opts.StatePath)
	if err != nil {
		t.Fatal(err)
	}
	res, err := output.Run(opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Rendered != 0 {
		t.Fatalf("second run rendered %d targets, want 0", res.Rendered)
	}
	after, err := os.Stat(opts.StatePath)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Error("a no-op run wrote the state file again")
	}
}
