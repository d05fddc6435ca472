package output

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
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
