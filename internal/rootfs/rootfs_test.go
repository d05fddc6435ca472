package rootfs_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/strata-fleet/strata/internal/rootfs"
)

// repo writes a repository with nested directories, a link inside it that
// climbs out of its directory, and links that leave it.
func repo(t *testing.T) (string, *os.Root) {
	t.Helper()
	dir := t.TempDir()
	write := func(name, data string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("config.yaml", "top\n")
	write("config/a/b/c/override.yaml", "deep\n")
	write("config/a/values.yaml", "a\n")
	write("shared/common.yaml", "common\n")
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	link("../../../../shared/common.yaml", "config/a/b/c/up.yaml") // inside the repository
	link("../../../shared", "config/a/b/linked")                   // a directory, inside
	link("/etc/passwd", "config/a/b/c/abs.yaml")                   // outside
	link("../../../../../outside.yaml", "config/a/b/c/out.yaml")   // outside
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return dir, root
}

// TestCacheAnswersAsRoot reads every path, good and bad, through os.Root's
// FS and through a Cache: the same data, listings and errors.
func TestCacheAnswersAsRoot(t *testing.T) {
	_, root := repo(t)
	want := root.FS()
	cache := rootfs.New(root).Cache()
	defer cache.Close()
	for _, name := range []string{
		"config.yaml", "config/a/values.yaml", "config/a/b/c/override.yaml", "config/a/b/c/up.yaml",
		"config/a/b/linked/common.yaml", "config/a/b/c/abs.yaml", "config/a/b/c/out.yaml",
		"config/a/b/c/missing.yaml", "config/missing/x.yaml", "config/a/b/c", "../x", "/etc/passwd", "config/a/../a/values.yaml",
	} {
		wantData, wantErr := fs.ReadFile(want, name)
		data, err := cache.ReadFile(name)
		if string(data) != string(wantData) || fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Errorf("ReadFile(%q) = %q, %v; os.Root's FS: %q, %v", name, data, err, wantData, wantErr)
		}
	}
	for _, name := range []string{".", "config", "config/a", "config/a/b", "config/a/b/c", "config/a/b/linked", "config/missing", "config.yaml", ".."} {
		wantList, wantErr := fs.ReadDir(want, name)
		list, err := cache.ReadDir(name)
		if names(list) != names(wantList) || fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Errorf("ReadDir(%q) = %s, %v; os.Root's FS: %s, %v", name, names(list), err, names(wantList), wantErr)
		}
	}
}

func names(entries []fs.DirEntry) string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Name()+":"+e.Type().String())
	}
	return strings.Join(out, " ")
}

// TestFSIsAnFS runs the standard file system checks on FS and on a Cache.
func TestFSIsAnFS(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a/b/c.yaml", "a/d.yaml", "e.yaml"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	f := rootfs.New(root)
	if err := fstest.TestFS(f, "a/b/c.yaml", "a/d.yaml", "e.yaml"); err != nil {
		t.Error(err)
	}
	cache := f.Cache()
	defer cache.Close()
	if err := fstest.TestFS(cache, "a/b/c.yaml", "a/d.yaml", "e.yaml"); err != nil {
		t.Error(err)
	}
}

// TestCacheBoundsOpenDirectories reads more directories than a Cache keeps
// open, from several goroutines: every read is right, the descriptors the
// process holds stay bounded, and Close gives them all back.
func TestCacheBoundsOpenDirectories(t *testing.T) {
	dir := t.TempDir()
	const n = 1000
	for i := range n {
		p := filepath.Join(dir, "config", fmt.Sprintf("s%d", i%10), fmt.Sprintf("r%03d", i))
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "override.yaml"), []byte(fmt.Sprint(i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	before := openFiles(t)
	cache := rootfs.New(root).Cache()
	var wg sync.WaitGroup
	var mu sync.Mutex
	most := 0
	for w := range 4 {
		wg.Go(func() {
			for i := w; i < n; i += 4 {
				d := fmt.Sprintf("config/s%d/r%03d", i%10, i)
				entries, err := cache.ReadDir(d)
				if err != nil || len(entries) != 1 {
					t.Errorf("ReadDir(%s) = %d entries, %v", d, len(entries), err)
				}
				data, err := cache.ReadFile(d + "/override.yaml")
				if err != nil || string(data) != fmt.Sprint(i) {
					t.Errorf("ReadFile(%s/override.yaml) = %q, %v", d, data, err)
				}
				if i%50 == w {
					mu.Lock()
					most = max(most, openFiles(t)-before)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if most > 300 {
		t.Errorf("a cache held %d more descriptors open; it keeps at most 256 directories", most)
	}
	if err := cache.Close(); err != nil {
		t.Fatal(err)
	}
	if after := openFiles(t); after > before {
		t.Errorf("after Close the process holds %d more descriptors than before the cache", after-before)
	}
}

func openFiles(t *testing.T) int {
	t.Helper()
	des, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(des)
}
