package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/strata-fleet/strata/internal/cli"
	"github.com/strata-fleet/strata/internal/testing/testgit"
)

// nullFleet is a fleet whose reports have empty lists: no freeze, no
// finding, no change, one patch with no approvals, one inventory cluster,
// and two cluster types, one placed by at:.
var nullFleet = map[string]string{
	"config/config.yaml": `dimensions: [environments, regions]
repository: {url: https://git.example.com/platform.git, revision: main}
rollout: {watch: false}
sequence:
  environments:
    - name: dev
      regions: [r1, r2]
    - name: prod
      promotion: manual
      regions: [r1, r2]
cluster_types:
  - name: mc
  - name: edge
    at: [dev, prod/r1]
`,
	"config/mc/defaults.yaml":         appDefaults,
	"config/mc/podinfo/values.yaml":   podinfo,
	"config/edge/defaults.yaml":       appDefaults,
	"config/edge/podinfo/values.yaml": podinfo,
	"config/mc/podinfo/dev/r1/patch-001.yaml": `metadata:
  description: podinfo 6.7.2
applications:
  podinfo:
    source:
      targetRevision: 6.7.2
`,
	"config/clusters/dev-r1.yaml": "type: mc\ntarget: dev/r1\n",
}

const appDefaults = `applications:
  default:
    project: default
    destination:
      name: in-cluster
`

const podinfo = `applications:
  podinfo:
    source:
      repoURL: https://stefanprodan.github.io/podinfo
      chart: podinfo
      targetRevision: 6.7.1
    destination:
      namespace: podinfo
`

// TestDataReportsHaveNoNull runs every command that prints a report as
// data, on a fleet where the report's lists are empty, and fails on any
// null in it: a script reads an empty list as [], never null.
func TestDataReportsHaveNoNull(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	for name, text := range nullFleet {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("STRATA_CACHE_DIR", filepath.Join(t.TempDir(), "cache"))
	testgit.Setenv(t) // for the commands' own git
	git := func(args ...string) {
		t.Helper()
		testgit.Run(t, dir, args...)
	}
	git("init", "-q", "-b", "main")
	if code := cli.Main([]string{"--root", dir, "render", "-q"}, new(bytes.Buffer), new(bytes.Buffer)); code != 0 {
		t.Fatalf("render: exit %d", code)
	}
	git("add", "-A")
	git("commit", "-q", "-m", "fleet")

	tests := []struct {
		name string
		args []string
		code int  // the exit code expected
		docs bool // one document per line (events), not one report
	}{
		{name: "render", args: []string{"render"}},
		{name: "render --check", args: []string{"render", "--check"}},
		{name: "status", args: []string{"status"}},
		{name: "diff", args: []string{"diff", "--base", "HEAD"}},
		{name: "explain", args: []string{"explain", "mc/dev/r2", "podinfo", "source.targetRevision"}},
		{name: "validate", args: []string{"validate"}},
		{name: "verify", args: []string{"verify", "--base", "HEAD"}},
		{name: "pin", args: []string{"pin", "dev", "v2", "--force", "--dry-run"}},
		{name: "promote", args: []string{"promote", "mc", "podinfo", "patch-001", "--dry-run"}},
		{name: "rollout", args: []string{"rollout", "mc", "podinfo", "patch-001", "--dry-run"}, docs: true},
		{name: "patch new", args: []string{"patch", "new", "mc", "podinfo", "--at", "prod", "--description", "x", "--dry-run"}},
		{name: "freeze --list", args: []string{"freeze", "--list"}},
		{name: "bootstrap", args: []string{"bootstrap", "dev-r1"}},
		{name: "bootstrap --changed-since", args: []string{"bootstrap", "--all", "--changed-since", "HEAD"}},
		{name: "version", args: []string{"version"}},
		{name: "init", args: []string{"init", "NEWDIR", "--no-git"}},
		// These write, in this order, and undo what they wrote.
		{name: "freeze", args: []string{"freeze", "prod", "--reason", "x", "--no-commit"}},
		{name: "unfreeze", args: []string{"unfreeze", "prod", "--no-commit"}},
	}
	for _, format := range []string{"json", "yaml"} {
		for _, tt := range tests {
			t.Run(tt.name+"/"+format, func(t *testing.T) {
				var stdout, stderr bytes.Buffer
				args := []string{"--root", dir}
				for _, a := range tt.args {
					if a == "NEWDIR" { // a directory init may create
						a = filepath.Join(t.TempDir(), "new")
					}
					args = append(args, a)
				}
				args = append(args, "-o", format)
				if code := cli.Main(args, &stdout, &stderr); code != tt.code {
					t.Fatalf("strata %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(tt.args, " "), code, tt.code, &stdout, &stderr)
				}
				docs := []string{stdout.String()}
				switch {
				case format == "yaml":
					docs = strings.Split(stdout.String(), "\n---\n")
				case tt.docs:
					docs = strings.Split(strings.TrimSpace(stdout.String()), "\n")
				}
				var nulls []string
				for _, doc := range docs {
					var v any
					var err error
					if format == "yaml" {
						err = yaml.Unmarshal([]byte(strings.TrimPrefix(doc, "---\n")), &v)
					} else {
						err = json.Unmarshal([]byte(doc), &v)
					}
					if err != nil {
						t.Fatalf("reading the report: %v\n%s", err, doc)
					}
					if v == nil && !onlyComments(doc) {
						nulls = append(nulls, "(the whole report)")
					}
					nulls = append(nulls, nullPaths("", v)...)
				}
				if len(nulls) > 0 {
					t.Errorf("strata %s -o %s: null at %s\n%s", strings.Join(tt.args, " "), format, strings.Join(nulls, ", "), &stdout)
				}
			})
		}
	}
}

// nullPaths lists where v holds null, as .key[index] paths.
func nullPaths(at string, v any) []string {
	var paths []string
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if v[k] == nil {
				paths = append(paths, at+"."+k)
				continue
			}
			paths = append(paths, nullPaths(at+"."+k, v[k])...)
		}
	case []any:
		for i, e := range v {
			if e == nil {
				paths = append(paths, fmt.Sprintf("%s[%d]", at, i))
				continue
			}
			paths = append(paths, nullPaths(fmt.Sprintf("%s[%d]", at, i), e)...)
		}
	}
	return paths
}

// onlyComments reports whether a YAML document holds comments only (as
// bootstrap's heading of each cluster's objects).
func onlyComments(doc string) bool {
	for _, line := range strings.Split(doc, "\n") {
		if line = strings.TrimSpace(line); line != "" && line != "---" && !strings.HasPrefix(line, "#") {
			return false
		}
	}
	return true
}
