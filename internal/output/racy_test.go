package output

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/testing/testgit"
	"github.com/strata-fleet/strata/internal/treestamp"
)

// A target is racy when any of its directories or files is (treestamp's
// rule, tested there), or when the clock could not be read.
func TestRacy(t *testing.T) {
	const clock = 1001
	for _, tc := range []struct {
		name  string
		ts    TargetState
		clock int64
		want  bool
	}{
		{"every stamp before the clock", TargetState{Dirs: []Stamp{{CTime: 998}}, Files: []Stamp{{CTime: 999, MTime: 5001}}}, clock, false},
		{"a file in the clock's tick", TargetState{Dirs: []Stamp{{CTime: 998}}, Files: []Stamp{{CTime: 999}, {CTime: clock}}}, clock, true},
		{"a directory in the clock's tick", TargetState{Dirs: []Stamp{{CTime: 998}, {CTime: clock}}, Files: []Stamp{{CTime: 999}}}, clock, true},
		{"no clock", TargetState{Files: []Stamp{{CTime: 999}}}, treestamp.NoClock, true},
	} {
		if got := tc.ts.racy(tc.clock); got != tc.want {
			t.Errorf("%s: racy = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// clocklessOps cannot make the staging area twice: the run that stages
// works, and reading the clock afterwards fails.
type clocklessOps struct {
	diskOps
	made int
}

func (o *clocklessOps) Mkdir(r *os.Root, name string) error {
	if name == stagingDir {
		if o.made++; o.made > 1 {
			return errors.New("injected: no clock")
		}
	}
	return o.diskOps.Mkdir(r, name)
}

// The state keeps no racy stamp: when the run could not tell (its clock
// unread), the next run renders its targets again, and compares what it
// finds (nothing to write here); the run after that vouches for them.
func TestRacyTargetsRenderAgain(t *testing.T) {
	dir, statePath := t.TempDir(), filepath.Join(t.TempDir(), "state")
	writeFiles(t, dir, fleetV1)
	for _, step := range []struct {
		name     string
		ops      fileOps
		rendered int
		written  int
	}{
		{"first render, the clock unread", &clocklessOps{}, 3, 12},
		{"every target racy", nil, 3, 0},
		{"none racy", nil, 0, 0},
	} {
		res, err := run(t, dir, statePath, step.ops)
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if written := len(res.Plan.Changes); res.Rendered != step.rendered || written != step.written {
			t.Errorf("%s: rendered %d targets, wrote %d files; want %d and %d", step.name, res.Rendered, written, step.rendered, step.written)
		}
		if _, err := os.Lstat(filepath.Join(dir, stagingDir)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: the staging area is left: %v", step.name, err)
		}
	}
}

// readClock leaves nothing behind, and reads a time no earlier than the
// last change the run made.
func TestReadClock(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := os.Lstat(filepath.Join(dir, "f"))
	if err != nil {
		t.Fatal(err)
	}
	clock, err := readClock(root, diskOps{})
	if err != nil {
		t.Fatal(err)
	}
	if changed := stamp(entry{Info: info}).Changed(); clock < changed {
		t.Errorf("the clock (%d) is before the last change (%d)", clock, changed)
	}
	if _, err := os.Lstat(filepath.Join(dir, stagingDir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("readClock left %s: %v", stagingDir, err)
	}
}

// clockStopOps stop the run (as a crash would) when it removes the
// directory of its clock: the staging area's second removal.
type clockStopOps struct {
	diskOps
	removals int
}

func (o *clockStopOps) RemoveAll(r *os.Root, name string) error {
	if name == stagingDir {
		if o.removals++; o.removals == 2 {
			return errCrashed
		}
	}
	return o.diskOps.RemoveAll(r, name)
}

// SaveState writes the journal of the switch, before the stop, and fails
// to write the render state after it.
func (o *clockStopOps) SaveState(path string, data []byte) error {
	if o.removals >= 2 {
		return errCrashed
	}
	return o.diskOps.SaveState(path, data)
}

// A run stopped while it reads the clock leaves a directory git ignores,
// which the next run removes.
func TestStoppedClockIsIgnored(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir, statePath := t.TempDir(), filepath.Join(t.TempDir(), "state")
	writeFiles(t, dir, fleetV1)
	testgit.Run(t, dir, "init", "-q")
	testgit.Run(t, dir, "add", ".")
	testgit.Run(t, dir, "commit", "-qm", "fleet")
	if _, err := run(t, dir, statePath, &clockStopOps{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, stagingDir)); err != nil {
		t.Fatalf("the stop left no clock directory to test with: %v", err)
	}
	if got, want := testgit.Run(t, dir, "status", "--porcelain", "--untracked-files=all"), "?? rendered/"; !strings.HasPrefix(got, want) || strings.Contains(got, stagingDir) {
		t.Errorf("git status = %q, want only rendered/", got)
	}
	if _, err := run(t, dir, statePath, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(dir, stagingDir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the next run left %s: %v", stagingDir, err)
	}
}
