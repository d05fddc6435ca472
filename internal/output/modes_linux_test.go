package output_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/strata-fleet/strata/internal/output"
)

// Rendered files are 0644 and directories 0755 whatever the umask: with
// one that clears none of those bits, creating them gives those modes and
// no chmod follows (modesExact); with one that does, the chmod sets them.
// Not parallel: the umask is the process's.
func TestModesWhateverTheUmask(t *testing.T) {
	for _, mask := range []int{0o022, 0o077, 0o000, 0o002} {
		old := syscall.Umask(mask)
		root := writeFleet(t, conflictingFleet())
		_, err := output.Run(output.Options{Root: root, FS: os.DirFS(root)})
		syscall.Umask(old)
		if err != nil {
			t.Fatalf("umask %03o: %v", mask, err)
		}
		files := 0
		err = filepath.WalkDir(filepath.Join(root, "rendered"), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			want := fs.FileMode(0o644)
			if d.IsDir() {
				want = fs.ModeDir | 0o755
			} else {
				files++
			}
			if info.Mode() != want {
				t.Errorf("umask %03o: %s has mode %v, want %v", mask, p, info.Mode(), want)
			}
			return nil
		})
		if err != nil || files == 0 {
			t.Fatalf("umask %03o: walking rendered/: %v (%d files)", mask, err, files)
		}
	}
}
