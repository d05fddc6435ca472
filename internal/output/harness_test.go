package output

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
func run(t testing.TB, dir, statePath string, ops fileOps) (*Result, error) {
	t.Helper()
	return Run(Options{Root: dir, FS: os.DirFS(dir), StatePath: statePath, ops: ops})
}

// targetsOf splits a rendered tree by target directory.
func targetsOf(tree map[string]string) map[string]map[string]string {
	out := map[string]map[string]string{}
	for p, data := range tree {
		parts := strings.SplitN(p, "/", 5) // rendered/mc/<env>/<region>/...
		if len(parts) < 5 {
			continue
		}
		dir := strings.Join(parts[:4], "/")
		if out[dir] == nil {
			out[dir] = map[string]string{}
		}
		out[dir][parts[4]] = data
	}
	return out
}
