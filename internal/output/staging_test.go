package output

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/atomicfile"
	"github.com/strata-fleet/strata/internal/testing/testgit"
	"github.com/strata-fleet/strata/internal/treestamp"
)

// What an interrupted render leaves is invisible to git, and the next run
// removes it, including the staging directories of older strata versions
// (.rendered-NNN).
func TestInterruptedStagingIsIgnoredAndCleanedUp(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	writeFiles(t, dir, fleetV1)
	testgit.Run(t, dir, "init", "-q")
	testgit.Run(t, dir, "add", ".")
	testgit.Run(t, dir, "commit", "-qm", "fleet")
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
	if got := testgit.Run(t, dir, "status", "--porcelain", "--untracked-files=all", "--", ".", ":!.rendered-123456"); got != "" {
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
	if got, want := testgit.Run(t, dir, "status", "--porcelain"), "?? rendered/"; got != want {
		t.Errorf("git status = %q, want %q", got, want)
	}
}

// A staging area committed to the repository, with a journal in it (the
// place and format of strata's journal before it moved to the local state)
// and a link to config/ where a switch moves old trees, moves nothing: the
// journal in the work tree is never read, and the run renders as usual.
// So does a journal of the local state whose staging area is not the
// one there (another inode).
func TestForeignJournalDoesNothing(t *testing.T) {
	for name, journal := range map[string]string{
		"committed, a step outside rendered/":  `{"version": 1, "entries": [{"path": "config", "old": ".strata-render/old/0"}]}`,
		"committed, a tree moved into config/": `{"version": 1, "entries": [{"path": "rendered/mc/dev/us-east1", "old": ".strata-render/old/0"}]}`,
		"committed, version 2":                 `{"version": 2, "staging": 1, "entries": [{"path": "rendered/mc/dev/us-east1", "old": ".strata-render/old/0"}]}`,
		"local, another staging area":          "",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, fleetV1)
			if _, err := run(t, dir, "", nil); err != nil {
				t.Fatal(err)
			}
			want := readTree(t, dir, "rendered")
			writeFiles(t, dir, map[string]string{
				stagingDir + "/journal.json":                      journal,
				stagingDir + "/new/0/Chart.yaml":                  "planted\n",
				stagingDir + "/new/0/templates/cert-manager.yaml": "planted\n",
			})
			if err := os.Symlink("../config", filepath.Join(dir, stagingDir, "old")); err != nil {
				t.Fatal(err)
			}
			if journal == "" {
				// What a run of this checkout would record, but for a
				// staging area of another inode.
				info, err := os.Lstat(filepath.Join(dir, stagingDir, "new/0"))
				if err != nil {
					t.Fatal(err)
				}
				ino, _ := treestamp.ID(info)
				local := fmt.Sprintf(`{"version": 2, "staging": 1, "entries": [{"path": "rendered/mc/dev/us-east1", "staged": ".strata-render/new/0", "old": ".strata-render/old/0", "ino": %d}]}`, ino)
				path, err := JournalPath(dir)
				if err != nil {
					t.Fatal(err)
				}
				if err := atomicfile.WriteAt(path, []byte(local)); err != nil {
					t.Fatal(err)
				}
			}
			res, err := run(t, dir, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Resumed || len(res.Completed) > 0 {
				t.Errorf("the run says it completed an interrupted render: %v", res.Completed)
			}
			if diff := cmp.Diff(want, readTree(t, dir, "rendered")); diff != "" {
				t.Errorf("rendered/ (-want +got):\n%s", diff)
			}
			if des, err := os.ReadDir(filepath.Join(dir, "config")); err != nil || len(des) != 2 {
				t.Errorf("config/ holds %d entries, %v; want config.yaml and mc/ only", len(des), err)
			}
			if _, err := os.Lstat(filepath.Join(dir, stagingDir)); !os.IsNotExist(err) {
				t.Errorf("the staging area is still there: %v", err)
			}
		})
	}
}
