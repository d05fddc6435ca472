package output

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A link committed anywhere in rendered/ never makes render write (or
// remove) through it: the run fails naming the link, before anything is
// written, and leaves the link and what it points to as they were. With
// and without a render state that knew the tree before the link came.
func TestRenderRefusesLinksInRendered(t *testing.T) {
	tests := []struct {
		name   string
		link   string // replaced by a link after a first render
		target string // relative to the link's directory; "OUTSIDE" for a directory outside the repository
	}{
		{"rendered/ itself", "rendered", "OUTSIDE"},
		{"a cluster type's directory", "rendered/mc", "OUTSIDE"},
		{"a target's directory, to another target", "rendered/mc/prod/eu-west1", "us-east1"},
		{"a target's directory, outside", "rendered/mc/prod/eu-west1", "OUTSIDE"},
		{"templates/", "rendered/mc/dev/us-east1/templates", "OUTSIDE"},
		{"an output file, to another target's", "rendered/mc/prod/eu-west1/templates/cert-manager.yaml", "../../us-east1/templates/cert-manager.yaml"},
		{"a stale file", "rendered/mc/prod/old.yaml", "us-east1/Chart.yaml"},
	}
	for _, tt := range tests {
		for _, withState := range []bool{false, true} {
			t.Run(tt.name+map[bool]string{true: " with state"}[withState], func(t *testing.T) {
				dir, outside := t.TempDir(), t.TempDir()
				state := ""
				if withState {
					state = filepath.Join(t.TempDir(), "state")
				}
				writeFiles(t, dir, fleetV1)
				writeFiles(t, outside, map[string]string{"keep.yaml": "outside\n", "templates/podinfo.yaml": "outside\n"})
				if _, err := run(t, dir, state, nil); err != nil {
					t.Fatal(err)
				}
				// Make the link, with the output of the whole target (or
				// tree) it replaces, as a repository would commit it.
				p := filepath.Join(dir, filepath.FromSlash(tt.link))
				if err := os.RemoveAll(p); err != nil {
					t.Fatal(err)
				}
				target := tt.target
				if target == "OUTSIDE" {
					target = outside
				}
				if err := os.Symlink(target, p); err != nil {
					t.Fatal(err)
				}
				// A changed input: targets render and would be written.
				writeFiles(t, dir, with(fleetV1, map[string]string{
					"config/mc/podinfo/values.yaml": strings.Replace(fleetV1["config/mc/podinfo/values.yaml"], "6.7.1", "6.8.0", 1),
				}))
				before, beforeOutside := readTree(t, dir, "rendered"), readTree(t, outside, ".")
				_, err := run(t, dir, state, nil)
				if err == nil || !strings.Contains(err.Error(), tt.link+" is a symbolic link") {
					t.Fatalf("Run = %v, want an error naming the link %s", err, tt.link)
				}
				if diff := cmp.Diff(before, readTree(t, dir, "rendered")); diff != "" {
					t.Errorf("rendered/ changed (-before +after):\n%s", diff)
				}
				if diff := cmp.Diff(beforeOutside, readTree(t, outside, ".")); diff != "" {
					t.Errorf("the directory outside changed (-before +after):\n%s", diff)
				}
				if _, err := os.Lstat(filepath.Join(dir, stagingDir)); !os.IsNotExist(err) {
					t.Errorf("the failed run left its staging area: %v", err)
				}
			})
		}
	}
}

// The render state never vouches for a tree it did not write: a target
// directory replaced by a link to a copy, or a file replaced by another of
// the same size and time, makes the target render again.
func TestStateDoesNotVouchForReplacedFiles(t *testing.T) {
	dir, state := t.TempDir(), filepath.Join(t.TempDir(), "state")
	writeFiles(t, dir, fleetV2)
	if _, err := run(t, dir, state, nil); err != nil {
		t.Fatal(err)
	}
	want := readTree(t, dir, "rendered")
	f := filepath.Join(dir, "rendered/mc/dev/us-east1/templates/podinfo.yaml")
	info, err := os.Stat(f)
	if err != nil {
		t.Fatal(err)
	}
	forged := []byte(strings.Repeat("x", int(info.Size())))
	if err := os.Remove(f); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, forged, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(f, time.Now(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	res, err := run(t, dir, state, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Rendered != 1 || res.Plan.Count(Update) != 1 {
		t.Errorf("rendered %d targets, %d updates; want the replaced file's target rendered and the file restored", res.Rendered, res.Plan.Count(Update))
	}
	if diff := cmp.Diff(want, readTree(t, dir, "rendered")); diff != "" {
		t.Errorf("rendered/ (-want +got):\n%s", diff)
	}

	// A target directory moved away and replaced by a link to it.
	target := filepath.Join(dir, "rendered/mc/prod/us-east1")
	if err := os.Rename(target, filepath.Join(dir, "elsewhere")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../../elsewhere", target); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, dir, state, nil); err == nil || !strings.Contains(err.Error(), "rendered/mc/prod/us-east1 is a symbolic link") {
		t.Errorf("Run = %v, want the link refused (not up to date)", err)
	}
}

// The staging area is refused when it is a link.
func TestStagingAreaLinkIsRefused(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, fleetV2)
	if err := os.Symlink("rendered", filepath.Join(dir, stagingDir)); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, dir, "", nil); err == nil || !strings.Contains(err.Error(), stagingDir+" is not a directory") {
		t.Errorf("Run = %v, want the link refused", err)
	}
}
