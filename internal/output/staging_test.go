package output

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// What an interrupted render leaves is invisible to git, and the next run
// removes it, including the staging directories of older strata versions
// (.rendered-NNN).
func TestInterruptedStagingIsIgnoredAndCleanedUp(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	writeFiles(t, dir, fleetV1)
	git(t, dir, "init", "-q")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-qm", "fleet")
	writeFiles(t, dir, map[string]string{".rendered-123456/mc/dev/us-east1/Chart.yaml": "old staging\n"})

	// Crash the first render late in its staging, with files staged.
	counter := &faultyOps{at: -1}
	probe := t.TempDir()
	writeFiles(t, probe, fleetV1)
	if _, err := run(t, probe, "", counter); err != nil {
		t.Fatal(err)
	}
	ops := &faultyOps{at: counter.n.Load() / 2, fault: crash}
	if _, err := run(t, dir, "", ops); err == nil {
		t.Fatal("the crashed run succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, stagingDir, "new")); err != nil {
		t.Fatalf("the crash left no staging area to test with: %v", err)
	}
	if got := git(t, dir, "status", "--porcelain", "--untracked-files=all", "--", ".", ":!.rendered-123456"); got != "" {
		t.Errorf("git status shows the staging area:\n%s", got)
	}

	if _, err := run(t, dir, "", nil); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{stagingDir, ".rendered-123456"} {
		if _, err := os.Lstat(filepath.Join(dir, d)); !os.IsNotExist(err) {
			t.Errorf("%s is still there after the next run: %v", d, err)
		}
	}
	// Only rendered/ is new to git.
	if got, want := git(t, dir, "status", "--porcelain"), "?? rendered/\n"; got != want {
		t.Errorf("git status = %q, want %q", got, want)
	}
}

// A journal that strata did not write (committed to the repository, say)
// moves nothing: its steps outside rendered/ or its trees that are not
// the ones staged are ignored, and the run renders as usual.
func TestForeignJournalDoesNothing(t *testing.T) {
	for name, journal := range map[string]string{
		"a step outside rendered/":       `{"version": 1, "entries": [{"path": "config", "old": ".strata-render/old/0"}]}`,
		"a staged tree it did not stage": `{"version": 1, "entries": [{"path": "rendered/mc/dev/us-east1", "staged": ".strata-render/new/0", "old": ".strata-render/old/0", "ino": 12345}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, fleetV1)
			if _, err := run(t, dir, "", nil); err != nil {
				t.Fatal(err)
			}
			want := readTree(t, dir, "rendered")
			writeFiles(t, dir, map[string]string{
				journalName:                      journal,
				stagingDir + "/new/0/Chart.yaml": "planted\n",
				stagingDir + "/new/0/templates/cert-manager.yaml": "planted\n",
			})
			if _, err := run(t, dir, "", nil); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, readTree(t, dir, "rendered")); diff != "" {
				t.Errorf("rendered/ (-want +got):\n%s", diff)
			}
			if _, err := os.Stat(filepath.Join(dir, "config/config.yaml")); err != nil {
				t.Errorf("config/ was moved: %v", err)
			}
			if _, err := os.Lstat(filepath.Join(dir, stagingDir)); !os.IsNotExist(err) {
				t.Errorf("the staging area is still there: %v", err)
			}
		})
	}
}
