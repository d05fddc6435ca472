package diff_test

import (
	"encoding/json"
	"flag"
	"github.com/strata-fleet/strata/internal/testing/goldenfile"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/diff"
	"github.com/strata-fleet/strata/internal/testing/testfleet"
	"github.com/strata-fleet/strata/internal/testing/testgit"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// repo writes the test fleet into sub (a directory of a new Git
// repository), commits it on branch main and returns the fleet's directory.
func repo(t *testing.T, sub string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	top := t.TempDir()
	dir := filepath.Join(top, sub)
	if err := testfleet.Write(dir); err != nil {
		t.Fatal(err)
	}
	testgit.Run(t, top, "init", "-q", "-b", "main")
	testgit.Run(t, top, "add", ".")
	testgit.Run(t, top, "commit", "-q", "-m", "fleet")
	return dir
}

func write(t *testing.T, dir, file, data string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(file))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func compare(t *testing.T, dir, base, target string) *diff.Result {
	t.Helper()
	rev, err := diff.ReadRevision(dir, base)
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	res, err := diff.Compare(diff.Options{Base: rev, Head: root.FS(), Target: target})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

const prodOverride = "config/management-cluster/cert-manager/production/override.yaml"

func TestNothingChanged(t *testing.T) {
	dir := repo(t, "")
	res := compare(t, dir, "HEAD", "")
	if got, want := res.Summary(), "no target changes (9 targets compared with HEAD)"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
}

func TestGoldenOverrideChange(t *testing.T) {
	dir := repo(t, "")
	data, err := os.ReadFile(filepath.Join(dir, prodOverride))
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, prodOverride, strings.Replace(string(data), "v1.17.0", "v1.17.4", 1))
	before := testgit.Run(t, dir, "status", "--porcelain")
	res := compare(t, dir, "HEAD", "")
	if after := testgit.Run(t, dir, "status", "--porcelain"); after != before {
		t.Errorf("git status changed:\n%s\nthen:\n%s", before, after)
	}
	if got, want := res.Summary(), "3 of 9 targets change: cert-manager"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	res.BaseCommit = "COMMIT"
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "override-change.json", append(b, '\n'))
}

func TestFilterAndSubdirectory(t *testing.T) {
	dir := repo(t, "fleets/one")
	data, err := os.ReadFile(filepath.Join(dir, prodOverride))
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, prodOverride, strings.Replace(string(data), "replicaCount: 3", "replicaCount: 5", 1))
	for _, tc := range []struct{ glob, want string }{
		{"", "3 of 9 targets change: cert-manager"},
		{"production/prod-canary", "1 of 1 target change: cert-manager"},
		{"*/*/us-east1", "2 of 4 targets change: cert-manager"},
		{"stage", "no target changes (3 targets compared with HEAD)"},
	} {
		if got := compare(t, dir, "HEAD", tc.glob).Summary(); got != tc.want {
			t.Errorf("--target %q: summary %q, want %q", tc.glob, got, tc.want)
		}
	}
}

func TestAddedTargetAndMergeBase(t *testing.T) {
	dir := repo(t, "")
	testgit.Run(t, dir, "checkout", "-q", "-b", "feature")
	cfg := filepath.Join(dir, "config/config.yaml")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, "config/config.yaml", strings.Replace(string(data), "            - name: ap-east1\n", "            - name: ap-east1\n            - name: ap-south1\n", 1))
	testgit.Run(t, dir, "commit", "-q", "-am", "new region")
	res := compare(t, dir, "main...HEAD", "")
	if got, want := res.Summary(), "1 of 10 targets change: cert-manager, hypershift, prometheus"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	if len(res.Changes) == 1 {
		c := res.Changes[0]
		if c.Target != "stage/stage-sector-2/ap-south1" || c.Status != diff.Added || len(c.Files) != 5 {
			t.Errorf("change %s %s with %d files, want stage/stage-sector-2/ap-south1 added with 5", c.Target, c.Status, len(c.Files))
		}
		if !strings.HasPrefix(c.Files[0].Diff, "--- /dev/null\n+++ b/rendered/management-cluster/stage/stage-sector-2/ap-south1/templates/cert-manager.yaml\n") {
			t.Errorf("diff of an added file:\n%s", c.Files[0].Diff)
		}
	}
}

func TestErrors(t *testing.T) {
	dir := repo(t, "")
	for _, tc := range []struct{ rev, want string }{
		{"no-such-branch", "--base no-such-branch: unknown revision"},
		{"main...nope", "--base main...nope: no merge base of main and nope"},
		{"--output=x", "not a revision"},
		// Each side of A...B is a revision, never an option of git
		// merge-base (--octopus would answer HEAD).
		{"--octopus...main", "--base --octopus: not a revision"},
		{"main...--all", "--base --all: not a revision"},
	} {
		if _, err := diff.ReadRevision(dir, tc.rev); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.rev, err, tc.want)
		}
	}
	if _, err := diff.ReadRevision(t.TempDir(), "HEAD"); err == nil || !strings.Contains(err.Error(), "is not in a Git repository") {
		t.Errorf("outside a repository: error %v", err)
	}
	rev, err := diff.ReadRevision(dir, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := diff.Compare(diff.Options{Base: rev, Head: os.DirFS(dir), Target: "[a"}); err == nil || !strings.Contains(err.Error(), "syntax error in pattern") {
		t.Errorf("bad glob: error %v", err)
	}
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got, *update)
}
