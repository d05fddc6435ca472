package atomicfile_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/strata-fleet/strata/internal/atomicfile"
)

func openRoot(t *testing.T, dir string) *os.Root {
	t.Helper()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// A new file is 0644 and its new directories 0755 whatever the umask; a
// replaced file keeps its permission bits; no temporary file remains.
func TestWriteFileModes(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	dir := t.TempDir()
	r := openRoot(t, dir)
	if err := atomicfile.WriteFile(r, "a/b/new.yaml", []byte("x: 1\n")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "script.sh"), []byte("old"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "script.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.WriteFile(r, "script.sh", []byte("new")); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]fs.FileMode{"a": 0o755, "a/b": 0o755, "a/b/new.yaml": 0o644, "script.sh": 0o755} {
		info, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got != want {
			t.Errorf("%s: mode %o, want %o", name, got, want)
		}
	}
	if got := readFile(t, filepath.Join(dir, "script.sh")); got != "new" {
		t.Errorf("script.sh = %q, want new", got)
	}
	for _, tmp := range []string{"a/b/.new.yaml.strata-tmp", ".script.sh.strata-tmp"} {
		if _, err := os.Lstat(filepath.Join(dir, tmp)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("temporary file %s left behind: %v", tmp, err)
		}
	}
}

// A symbolic link on the way, even one that stays inside the root, or as
// the file itself, is refused and nothing is written anywhere.
func TestWriteFileRefusesSymlinks(t *testing.T) {
	outside := t.TempDir()
	tests := []struct {
		name, link, target, write, want string
	}{
		{"directory leaving the root", "out", outside, "out/x.yaml", "out"},
		{"directory inside the root", "rendered", "elsewhere", "rendered/x.yaml", "rendered"},
		{"deeper directory", "rendered/a", "../elsewhere", "rendered/a/x.yaml", "rendered/a"},
		{"the file itself", "rendered/x.yaml", "../elsewhere/y.yaml", "rendered/x.yaml", "rendered/x.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "rendered"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(dir, "elsewhere"), 0o755); err != nil {
				t.Fatal(err)
			}
			if tt.link == "rendered" {
				os.Remove(filepath.Join(dir, "rendered"))
			}
			if err := os.Symlink(tt.target, filepath.Join(dir, tt.link)); err != nil {
				t.Fatal(err)
			}
			err := atomicfile.WriteFile(openRoot(t, dir), tt.write, []byte("data"))
			var se *atomicfile.SymlinkError
			if !errors.As(err, &se) || se.Path != tt.want || !errors.Is(err, atomicfile.ErrSymlink) {
				t.Fatalf("WriteFile(%s) = %v, want a SymlinkError naming %s", tt.write, err, tt.want)
			}
			for _, d := range []string{outside, filepath.Join(dir, "elsewhere")} {
				if entries, _ := os.ReadDir(d); len(entries) != 0 {
					t.Errorf("something was written into %s: %v", d, entries)
				}
			}
		})
	}
}

// When the content cannot be produced, the old file stays and no
// temporary file is left.
func TestWriteKeepsTheOldFileOnError(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := atomicfile.Write(openRoot(t, dir), "f", func(w io.Writer) error {
		w.Write([]byte("half"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Write = %v, want boom", err)
	}
	if got := readFile(t, filepath.Join(dir, "f")); got != "old" {
		t.Errorf("f = %q, want old", got)
	}
	if _, err := os.Lstat(filepath.Join(dir, atomicfile.TempName("f"))); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("temporary file left behind: %v", err)
	}
}

// What a crash leaves (a torn temporary file) is replaced by the next
// write of the same name.
func TestWriteFileReplacesATornTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, atomicfile.TempName("f")), []byte("torn and longer"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.WriteFile(openRoot(t, dir), "f", []byte("new")); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, "f")); got != "new" {
		t.Errorf("f = %q, want new", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only f", len(entries))
	}
}

func TestWriteAtCreatesTheDirectory(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cache", "strata", "state")
	if err := atomicfile.WriteAt(p, []byte("s")); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, p); got != "s" {
		t.Errorf("state = %q", got)
	}
}
