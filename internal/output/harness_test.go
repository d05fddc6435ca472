package output

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMain keeps the local state of the tests' repositories (the journal
// of a switch; the render state where a test does not name its own) out
// of the user's cache.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "strata-output-test")
	if err != nil {
		panic(err)
	}
	os.Setenv("STRATA_CACHE_DIR", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// A fleet of three targets (v1) and a change of it (v2) that updates two
// targets, leaves one as it is, adds one and removes one.
var (
	fleetV1 = map[string]string{
		"config/config.yaml": `dimensions: [environments, regions]
sequence:
  environments:
  - name: dev
    regions: [{name: us-east1}]
  - name: prod
    regions: [{name: us-east1}, {name: eu-west1}]
cluster_types: [{name: mc}]
`,
		"config/mc/defaults.yaml": "applications:\n  default:\n    project: default\n    destination: {name: in-cluster}\n",
		"config/mc/cert-manager/values.yaml": "applications:\n  cert-manager:\n    source: {repoURL: https://charts.jetstack.io, chart: cert-manager, targetRevision: v1.15.0}\n" +
			"    destination: {namespace: cert-manager}\n",
		"config/mc/cert-manager/prod/override.yaml": "applications:\n  cert-manager:\n    source: {targetRevision: v1.14.0}\n",
		"config/mc/podinfo/values.yaml": "applications:\n  podinfo:\n    source: {repoURL: https://stefanprodan.github.io/podinfo, chart: podinfo, targetRevision: 6.7.1}\n" +
			"    destination: {namespace: podinfo}\n",
	}
	fleetV2 = with(fleetV1, map[string]string{
		"config/config.yaml": `dimensions: [environments, regions]
sequence:
  environments:
  - name: dev
    regions: [{name: us-east1}, {name: asia-east1}]
  - name: prod
    regions: [{name: us-east1}]
cluster_types: [{name: mc}]
`,
		"config/mc/cert-manager/prod/override.yaml": "applications:\n  cert-manager:\n    source: {targetRevision: v1.14.1}\n",
	})
)

func with(base, more map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}

// writeFiles writes files under dir.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readTree returns what is under dir/sub: file contents by slash path,
// "-> target" for links, "/" for directories.
func readTree(t testing.TB, dir, sub string) map[string]string {
	t.Helper()
	out := map[string]string{}
	base := filepath.Join(dir, sub)
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == base {
				return fs.SkipAll
			}
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "-> " + target
		case d.IsDir():
			out[rel+"/"] = ""
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// run runs Run on dir with the state at statePath (and ops, when set).
// nil ops: the disk, as tickingOps.
func run(t testing.TB, dir, statePath string, ops fileOps) (*Result, error) {
	t.Helper()
	if ops == nil {
		ops = tickingOps{diskOps{exact: modesExact(dir)}, t}
	}
	return Run(Options{Root: dir, FS: os.DirFS(dir), StatePath: statePath, ops: ops})
}

// tickingOps are the disk, where a run reads the clock (readClock) a tick
// after its last change: on a file system whose clock ticks coarsely, a
// run as quick as these tests' would find its last stamps racy and leave
// their targets to the next run, which the tests do not expect (racy
// stamps have their own, racy_test.go).
type tickingOps struct {
	diskOps
	t testing.TB
}

func (o tickingOps) WriteFile(r *os.Root, name string, data []byte) error {
	if name == stagingDir+"/.gitignore" { // the clock's (and the staging area's, which can wait too)
		waitTick(o.t, r, stagingDir)
	}
	return o.diskOps.WriteFile(r, name, data)
}

// waitTick changes the directory dir until its change time moves.
func waitTick(t testing.TB, r *os.Root, dir string) {
	t.Helper()
	changed := func() int64 {
		info, err := r.Lstat(dir)
		if err != nil {
			t.Fatal(err)
		}
		return stamp(entry{Info: info}).Changed()
	}
	start, probe := changed(), dir+"/tick"
	for deadline := time.Now().Add(10 * time.Second); changed() == start; {
		if time.Now().After(deadline) {
			t.Fatalf("the change time of %s did not move in 10s", dir)
		}
		if err := r.Mkdir(probe, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := r.Remove(probe); err != nil {
			t.Fatal(err)
		}
	}
}

// targetsOf splits a rendered tree by target directory, each depth
// segments deep (4 for rendered/mc/<env>/<region>).
func targetsOf(tree map[string]string, depth int) map[string]map[string]string {
	out := map[string]map[string]string{}
	for p, data := range tree {
		parts := strings.SplitN(p, "/", depth+1)
		if len(parts) < depth+1 {
			continue
		}
		dir := strings.Join(parts[:depth], "/")
		if out[dir] == nil {
			out[dir] = map[string]string{}
		}
		out[dir][parts[depth]] = data
	}
	return out
}

// testLayout is a layout of config.yaml for fleetV1 and fleetV2: the
// dimensions in another order than the sequence's, the cluster type last,
// under an output root two directories deep (testLayoutRoot) whose target
// directories are testLayoutDepth segments deep.
const (
	testLayout      = "layout:\n  path: deploy/out/{region}/{environment}/{clusterType}-manifests\n"
	testLayoutRoot  = "deploy/out"
	testLayoutDepth = 5
)

// withLayout returns files (a fleet) with testLayout in its config.yaml;
// nil for nil.
func withLayout(files map[string]string) map[string]string {
	if files == nil {
		return nil
	}
	return with(files, map[string]string{"config/config.yaml": files["config/config.yaml"] + testLayout})
}

// testValuesLayout is testLayout with a plain values file beside each
// target's directory (layout.values), holding the section shard.
const testValuesLayout = testLayout + "  values: {path: 'deploy/out/{region}/{environment}/{clusterType}-values.yaml', section: shard}\n"

// withValuesLayout returns files (a fleet) with testValuesLayout in its
// config.yaml and a shard section in its podinfo component: replicas 1, 3
// in prod when prodReplicas; nil for nil.
func withValuesLayout(files map[string]string, prodReplicas bool) map[string]string {
	if files == nil {
		return nil
	}
	more := map[string]string{
		"config/config.yaml":            files["config/config.yaml"] + testValuesLayout,
		"config/mc/defaults.yaml":       files["config/mc/defaults.yaml"] + "shard:\n  default: {}\n",
		"config/mc/podinfo/values.yaml": files["config/mc/podinfo/values.yaml"] + "shard:\n  podinfo: {replicas: 1}\n",
	}
	if prodReplicas {
		more["config/mc/podinfo/prod/override.yaml"] = "shard:\n  podinfo: {replicas: 3}\n"
	}
	return with(files, more)
}
