//go:build linux

package output

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A no-op run on Linux vouches for a target from the stamps of its
// directories and files alone, listing no directory; anything added,
// removed, replaced or edited in the target breaks a stamp, and the target
// renders again to what it was (or, when its files are those recorded after
// all, is found current by listing it).
func TestStampsVouchOnlyForTheTreeAsWritten(t *testing.T) {
	const target = "rendered/mc/dev/us-east1"
	for _, tc := range []struct {
		name     string
		change   func(t *testing.T, dir string)
		rendered int
	}{
		{"a file added to templates/", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string]string{target + "/templates/extra.yaml": "kind: ConfigMap\n"})
		}, 1},
		{"a file removed", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, target, "templates/podinfo.yaml")); err != nil {
				t.Fatal(err)
			}
		}, 1},
		{"a file edited in place, its size and time kept", func(t *testing.T, dir string) {
			f := filepath.Join(dir, target, "templates/podinfo.yaml")
			info, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			fh, err := os.OpenFile(f, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := fh.WriteAt([]byte("#"), 0); err != nil {
				t.Fatal(err)
			}
			fh.Close()
			if err := os.Chtimes(f, time.Now(), info.ModTime()); err != nil {
				t.Fatal(err)
			}
		}, 1},
		{"templates/ replaced by a copy", func(t *testing.T, dir string) {
			tpl := filepath.Join(dir, target, "templates")
			if err := os.CopyFS(tpl+".copy", os.DirFS(tpl)); err != nil {
				t.Fatal(err)
			}
			if err := os.RemoveAll(tpl); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tpl+".copy", tpl); err != nil {
				t.Fatal(err)
			}
		}, 1},
		{"a file added and removed again", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string]string{target + "/extra": "x"})
			if err := os.Remove(filepath.Join(dir, target, "extra")); err != nil {
				t.Fatal(err)
			}
		}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, statePath := t.TempDir(), filepath.Join(t.TempDir(), "state")
			writeFiles(t, dir, fleetV2)
			if _, err := run(t, dir, statePath, nil); err != nil {
				t.Fatal(err)
			}
			want := readTree(t, dir, "rendered")
			if v := vouched(t, dir, statePath); len(v) != len(LoadState(statePath).Targets) {
				t.Fatalf("the stamps vouch for %d targets of an untouched tree, want all %d", len(v), len(LoadState(statePath).Targets))
			}
			tc.change(t, dir)
			if v := vouched(t, dir, statePath); v[target] || len(v) != len(LoadState(statePath).Targets)-1 {
				t.Errorf("the stamps vouch for %v, want every target but %s", v, target)
			}
			res, err := run(t, dir, statePath, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Rendered != tc.rendered {
				t.Errorf("rendered %d targets, want %d", res.Rendered, tc.rendered)
			}
			if d := cmp.Diff(want, readTree(t, dir, "rendered")); d != "" {
				t.Errorf("rendered/ after the run (-want +got):\n%s", d)
			}
		})
	}
}

// vouched returns the targets of the state that stampsCurrent vouches for.
func vouched(t *testing.T, dir, statePath string) map[string]bool {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	tr := newTree(root)
	defer tr.close()
	out := map[string]bool{}
	for d, ts := range LoadState(statePath).Targets {
		if stampsCurrent(tr, d, ts) {
			out[d] = true
		}
	}
	return out
}

// The stamps a run records for the targets it staged (the files it wrote
// and their directories as staged; the target's directory and the files it
// linked after the switch) are those a listing of each target gives after
// the run, in its order, and the next run vouches for every target: for a
// first render, for targets updated (some files linked, some written),
// added and removed, and for targets whose inputs changed but not their
// files (not staged: listed).
func TestStampsFromStagingAreTheListings(t *testing.T) {
	dir, statePath := t.TempDir(), filepath.Join(t.TempDir(), "state")
	override := "config/mc/cert-manager/prod/override.yaml"
	for _, step := range []struct {
		name                string
		files               map[string]string
		rendered, unchanged int
	}{
		{"first render", fleetV1, 3, 0},
		// prod/us-east1 staged with two files linked, two written;
		// dev/us-east1 found unchanged.
		{"targets updated, added and removed", fleetV2, 3, 6},
		{"inputs changed, not the files", with(fleetV2, map[string]string{override: fleetV2[override] + "# a comment\n"}), 1, 12},
	} {
		writeFiles(t, dir, step.files)
		res, err := run(t, dir, statePath, nil)
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if res.Rendered != step.rendered || res.Plan.Unchanged != step.unchanged {
			t.Errorf("%s: rendered %d targets, %d files unchanged; want %d and %d", step.name, res.Rendered, res.Plan.Unchanged, step.rendered, step.unchanged)
		}
		root, err := os.OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		tr := newTree(root)
		state := LoadState(statePath)
		for d, ts := range state.Targets {
			want, err := stamped(tr, d, ts.Fingerprint)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, ts); diff != "" {
				t.Errorf("%s: the state of %s (-listed +recorded):\n%s", step.name, d, diff)
			}
		}
		tr.close()
		root.Close()
		if v := vouched(t, dir, statePath); len(v) != len(state.Targets) || len(v) != 3 {
			t.Errorf("%s: the stamps vouch for %v of the state's %d targets, want all 3", step.name, v, len(state.Targets))
		}
	}
}

// byWalk orders names as a listing walks them: a directory's entries right
// after it, whatever the names that sort between.
func TestByWalk(t *testing.T) {
	names := []string{"a", "a/b", "a/b/c", "a.yaml", "a0", "b", "templates/x.yaml", "templates/y.yaml", "values.yaml"}
	shuffled := slices.Clone(names)
	slices.Reverse(shuffled)
	stamps := make([]Stamp, len(shuffled))
	for i, n := range shuffled {
		stamps[i] = Stamp{Name: n}
	}
	slices.SortFunc(stamps, byWalk)
	var got []string
	for _, s := range stamps {
		got = append(got, s.Name)
	}
	if !slices.Equal(got, names) {
		t.Errorf("byWalk sorts %q, want %q", got, names)
	}
}
