package rootfs_test

import (
	"errors"
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

// writers returns functions that write a file (and its directories) and
// make a symbolic link in dir.
func writers(t *testing.T, dir string) (write func(name, data string), link func(target, name string)) {
	write = func(name, data string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link = func(target, name string) {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return write, link
}

// repo writes a repository with nested directories, a link inside it that
// climbs out of its directory, and links that leave it.
func repo(t *testing.T) (string, *os.Root) {
	t.Helper()
	dir := t.TempDir()
	write, link := writers(t, dir)
	write("config.yaml", "top\n")
	write("config/a/b/c/override.yaml", "deep\n")
	write("config/a/values.yaml", "a\n")
	write("shared/common.yaml", "common\n")
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

// TestGitDataIsRefused reads git's data by name and through links inside
// the repository, through FS and a Cache: every read is refused with a
// *GitDataError naming the link, and no byte of it comes back.
func TestGitDataIsRefused(t *testing.T) {
	for _, gitFile := range []bool{false, true} {
		t.Run(fmt.Sprintf("gitfile=%v", gitFile), func(t *testing.T) {
			dir := t.TempDir()
			gitDir := ".git"
			if gitFile { // a clone made with --separate-git-dir inside the tree
				gitDir = "gitdata"
			}
			write, link := writers(t, dir)
			write(gitDir+"/config", "[credential]\n\thelper = store SECRET\n")
			write(gitDir+"/modules/sub/config", "SECRET\n")
			if gitFile {
				write(".git", "gitdir: gitdata\n")
			}
			write("sub/.git", "gitdir: ../"+gitDir+"/modules/sub\n")
			write("charts/app/Chart.yaml", "name: app\n")
			write("charts/app/values.yaml", "a: 1\n")
			link("../../"+gitDir+"/config", "charts/app/templates.yaml") // a file
			link("../../"+gitDir, "charts/app/meta")                     // a directory
			link("../..", "charts/app/top")                              // the root, then .git by name
			link("templates.yaml", "charts/app/again.yaml")              // a link to a link
			link("../../sub/.git", "charts/app/subgit")                  // a submodule's .git file
			root, err := os.OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			f := rootfs.New(root)
			cache := f.Cache()
			defer cache.Close()
			for _, tc := range []struct{ name, link string }{
				{gitDir + "/config", ""},
				{".GIT/config", ""},
				{"sub/.git", ""},
				{gitDir + "/modules/sub/config", ""},
				{"charts/app/templates.yaml", "charts/app/templates.yaml -> ../../" + gitDir + "/config"},
				{"charts/app/again.yaml", "charts/app/templates.yaml -> ../../" + gitDir + "/config"},
				{"charts/app/meta/config", "charts/app/meta -> ../../" + gitDir},
				{"charts/app/top/charts/app/meta/config", "charts/app/meta -> ../../" + gitDir},
				{"charts/app/subgit", "charts/app/subgit -> ../../sub/.git"},
			} {
				if gitFile && tc.name == ".GIT/config" {
					continue
				}
				for what, fsys := range map[string]fs.FS{"FS": f, "Cache": cache} {
					data, err := fs.ReadFile(fsys, tc.name)
					var ge *rootfs.GitDataError
					if !errors.As(err, &ge) || !errors.Is(err, rootfs.ErrGitData) {
						t.Errorf("%s: ReadFile(%s) = %q, %v; want a GitDataError", what, tc.name, data, err)
						continue
					}
					if got := strings.TrimPrefix(ge.Link+" -> "+ge.Target, " -> "); got != tc.link {
						t.Errorf("%s: ReadFile(%s): link %q, want %q", what, tc.name, got, tc.link)
					}
					if _, err := fs.Stat(fsys, tc.name); !errors.Is(err, rootfs.ErrGitData) {
						t.Errorf("%s: Stat(%s) = %v, want a GitDataError", what, tc.name, err)
					}
				}
			}
			for _, name := range []string{"charts/app/meta", gitDir} {
				if _, err := fs.ReadDir(cache, name); !errors.Is(err, rootfs.ErrGitData) {
					t.Errorf("ReadDir(%s) = %v, want a GitDataError", name, err)
				}
			}
			// What is not git's data reads as before; the link itself can
			// be looked at.
			if data, err := fs.ReadFile(cache, "charts/app/top/charts/app/values.yaml"); err != nil || string(data) != "a: 1\n" {
				t.Errorf("ReadFile through a link to the root = %q, %v", data, err)
			}
			if _, err := fs.ReadDir(f, "."); err != nil {
				t.Errorf("ReadDir(.) = %v", err)
			}
			if _, err := f.Lstat("charts/app/templates.yaml"); err != nil {
				t.Errorf("Lstat of the link = %v", err)
			}
		})
	}
}

// $GIT_DIR, when it is inside the repository, is git's data too, whatever
// its name.
func TestGitDirFromTheEnvironmentIsRefused(t *testing.T) {
	dir := t.TempDir()
	write, link := writers(t, dir)
	write("store/config", "SECRET\n")
	write("values.yaml", "a: 1\n")
	link("store/config", "linked.yaml")
	t.Setenv("GIT_DIR", filepath.Join(dir, "store"))
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	f := rootfs.New(root)
	for _, name := range []string{"store/config", "linked.yaml"} {
		if data, err := f.ReadFile(name); !errors.Is(err, rootfs.ErrGitData) {
			t.Errorf("ReadFile(%s) = %q, %v; want a GitDataError", name, data, err)
		}
	}
	if _, err := f.ReadFile("values.yaml"); err != nil {
		t.Error(err)
	}
}
