package pin_test

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/pin"
	"github.com/strata-fleet/strata/internal/testing/testgit"
)

// gitRepo makes a clone with a remote "origin": main and release pushed,
// wip a branch never pushed (one commit ahead), v1 a tag. It returns the
// clone and the commits by name.
func gitRepo(t *testing.T) (string, map[string]string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	origin, dir := filepath.Join(root, "origin.git"), filepath.Join(root, "fleet")
	run := func(dir string, args ...string) string {
		t.Helper()
		return testgit.Run(t, dir, args...)
	}
	run("", "init", "-q", "--bare", "-b", "main", origin)
	run("", "init", "-q", "-b", "main", dir)
	run(dir, "commit", "-q", "--allow-empty", "-m", "one")
	run(dir, "tag", "v1")
	run(dir, "branch", "release")
	run(dir, "remote", "add", "origin", origin)
	run(dir, "push", "-q", "origin", "main", "release")
	commits := map[string]string{"main": run(dir, "rev-parse", "HEAD")}
	run(dir, "switch", "-q", "-c", "wip")
	run(dir, "commit", "-q", "--allow-empty", "-m", "two")
	commits["wip"] = run(dir, "rev-parse", "HEAD")
	run(dir, "switch", "-q", "main")
	return dir, commits
}

func TestResolve(t *testing.T) {
	dir, commits := gitRepo(t)
	tests := []struct {
		name, rev string
		kind      string
		warnings  []string // substrings, one per warning, in order
	}{
		{"a pushed branch", "release", "branch", nil},
		{"a branch never pushed", "wip", "branch", []string{"branch wip exists only in this clone: push it (git push -u origin wip)"}},
		{"a commit on a remote branch", commits["main"], "commit", nil},
		{"a commit on no remote branch", commits["wip"], "commit", []string{"is on no branch of origin (as of the last fetch): push it"}},
		{"an abbreviated hash", commits["main"][:10], "commit", []string{"abbreviates commit " + commits["main"] + ": pin the full hash"}},
		{"a tag: only the remote can tell", "v1", "tag", []string{"tag v1 is in this clone; whether the remote has it, only the remote can tell"}},
		{"HEAD", "HEAD", "HEAD", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := pin.Resolve(dir, tc.rev, false)
			if err != nil {
				t.Fatal(err)
			}
			if res.Kind != tc.kind || res.Commit == "" {
				t.Errorf("Resolve(%s) = %s at %q, want a %s with its commit", tc.rev, res.Kind, res.Commit, tc.kind)
			}
			if len(res.Warnings) != len(tc.warnings) {
				t.Fatalf("Resolve(%s): warnings %q, want %d", tc.rev, res.Warnings, len(tc.warnings))
			}
			for i, w := range tc.warnings {
				if !strings.Contains(res.Warnings[i], w) {
					t.Errorf("Resolve(%s): warning %q, want it to say %q", tc.rev, res.Warnings[i], w)
				}
			}
		})
	}
}

func TestResolveRefusesWhatTheCloneCannotResolve(t *testing.T) {
	dir, _ := gitRepo(t)
	for rev, want := range map[string]string{
		"0123456789abcdef0123456789abcdef01234567": "is not a branch, tag or commit of this clone; only the remote can tell whether it has it (git fetch, then pin again) (pass --force to pin it unchecked)",
		"relase":         "is not a branch, tag or commit of this clone; only the remote can tell",
		"origin/release": "Argo CD looks a pin up in the remote by name; pin the branch, tag or commit itself",
	} {
		_, err := pin.Resolve(dir, rev, false)
		var unresolved *pin.UnresolvedError
		if !errors.As(err, &unresolved) || !strings.Contains(err.Error(), want) {
			t.Errorf("Resolve(%s): error %v, want an UnresolvedError saying %q", rev, err, want)
		}
		res, err := pin.Resolve(dir, rev, true)
		if err != nil || res.Kind != "unchecked" || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "pinned unchecked (--force)") {
			t.Errorf("Resolve(%s, force): %+v, %v; want it unchecked with a warning", rev, res, err)
		}
	}
	if _, err := pin.Resolve(t.TempDir(), "main", false); err == nil || !strings.Contains(err.Error(), "is not in a Git repository, so strata cannot tell whether it exists") {
		t.Errorf("Resolve outside a repository: error %v, want one saying it cannot tell", err)
	}
}
