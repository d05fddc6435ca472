package web

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/strata-fleet/strata/internal/testing/testfleet"
	"github.com/strata-fleet/strata/internal/treestamp"
)

// Every change under config/ or argocd-apps/ is seen: the stamps that a
// scan recorded stop vouching for the tree (on Linux, where they are
// checked without listing), and a new scan differs from the old one.
func TestSourcesSeeEveryChange(t *testing.T) {
	const (
		deep  = "config/management-cluster/cert-manager/production/prod-sector-1/us-east1"
		file  = deep + "/override.yaml"
		other = "config/management-cluster/cert-manager/production/override.yaml"
	)
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, dir string)
	}{
		{"a file edited in place, its size and modification time kept", func(t *testing.T, dir string) {
			p := filepath.Join(dir, file)
			info := stat(t, p)
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteAt([]byte("#"), 0); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			must(t, os.Chtimes(p, info.ModTime(), info.ModTime()))
			if now := stat(t, p); now.Size() != info.Size() || !now.ModTime().Equal(info.ModTime()) {
				t.Fatal("the edit changed the size or the modification time")
			}
		}},
		{"a file appended to", func(t *testing.T, dir string) {
			f, err := os.OpenFile(filepath.Join(dir, file), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.WriteString("# more\n")
			must(t, err)
			must(t, f.Close())
		}},
		{"a file added deep down", func(t *testing.T, dir string) {
			must(t, os.WriteFile(filepath.Join(dir, deep, "patch-009.yaml"), []byte("metadata: {}\n"), 0o644))
		}},
		{"a file removed", func(t *testing.T, dir string) { must(t, os.Remove(filepath.Join(dir, file))) }},
		{"a file renamed over another", func(t *testing.T, dir string) {
			must(t, os.Rename(filepath.Join(dir, file), filepath.Join(dir, other)))
		}},
		{"a file's mode changed", func(t *testing.T, dir string) { must(t, os.Chmod(filepath.Join(dir, file), 0o600)) }},
		{"a directory replaced by a copy with the same times", func(t *testing.T, dir string) {
			p := filepath.Join(dir, deep)
			info, data := stat(t, filepath.Join(p, "override.yaml")), read(t, filepath.Join(p, "override.yaml"))
			dinfo := stat(t, p)
			must(t, os.Rename(p, p+".old"))
			must(t, os.Mkdir(p, 0o755))
			must(t, os.WriteFile(filepath.Join(p, "override.yaml"), data, 0o644))
			must(t, os.Chtimes(filepath.Join(p, "override.yaml"), info.ModTime(), info.ModTime()))
			must(t, os.Chtimes(p, dinfo.ModTime(), dinfo.ModTime()))
			must(t, os.RemoveAll(p+".old"))
		}},
		{"a chart file added", func(t *testing.T, dir string) {
			must(t, os.MkdirAll(filepath.Join(dir, "argocd-apps", "templates"), 0o755))
			must(t, os.WriteFile(filepath.Join(dir, "argocd-apps", "templates", "x.yaml"), []byte("{}\n"), 0o644))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			must(t, testfleet.Write(dir))
			root, err := os.OpenRoot(dir)
			must(t, err)
			defer root.Close()
			fsys := root.FS()
			src := settledScan(t, fsys)
			if runtime.GOOS == "linux" && !src.current(fsys) {
				t.Fatal("a scan does not vouch for the tree it just saw")
			}
			if !scanSources(fsys, treestamp.Now).same(src) {
				t.Fatal("two scans of the same tree differ")
			}
			tc.change(t, dir)
			if src.current(fsys) {
				t.Error("the stamps still vouch for the tree")
			}
			if scanSources(fsys, treestamp.Now).same(src) {
				t.Error("a new scan is the same as the old one")
			}
		})
	}
}

// settledScan scans fsys until the scan is not racy (past the clock tick of
// the test's writes).
func settledScan(t *testing.T, fsys fs.FS) sources {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if src := scanSources(fsys, treestamp.Now); !src.racy {
			return src
		}
		if time.Now().After(deadline) {
			t.Fatal("every scan is racy after 30s")
		}
	}
}

func stat(t *testing.T, p string) os.FileInfo {
	t.Helper()
	info, err := os.Stat(p)
	must(t, err)
	return info
}

func read(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	must(t, err)
	return data
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A scan is racy when the clock read after it is not past one of its
// stamps: a change in that tick could keep the stamp. The look after a
// racy one loads the fleet again, though it sees the same tree.
func TestRacyLookReloads(t *testing.T) {
	dir := t.TempDir()
	must(t, testfleet.Write(dir))
	root, err := os.OpenRoot(dir)
	must(t, err)
	defer root.Close()
	s := New(Options{Dir: dir, FS: root.FS()})
	for deadline := time.Now().Add(30 * time.Second); s.Refresh(); {
		if time.Now().After(deadline) {
			t.Fatal("still reloading at every look after 30s")
		}
	}
	gen := s.Generation()
	// The clock as it read in the tick of the last write.
	var last int64
	for _, e := range s.src.entries {
		last = max(last, e.stamp.Changed())
	}
	if s.src = scanSources(root.FS(), func() int64 { return last }); !s.src.racy {
		t.Fatal("a scan whose clock is at its last stamp is not racy")
	}
	if !s.Refresh() || s.Generation() != gen+1 {
		t.Fatalf("a look after a racy one did not reload (generation %d, was %d)", s.Generation(), gen)
	}
	if s.Refresh() {
		t.Error("a look after a settled one reloaded")
	}
}
