package promote

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/strata-fleet/strata/internal/atomicfile"
	"github.com/strata-fleet/strata/internal/localstate"
)

// DirOps performs FileOps on the directory Root, through an os.Root so that
// no name resolves outside it: writes go through package atomicfile
// (never through a symbolic link; a temporary file next to the
// destination, synced, then renamed; its name is fixed, so a write repeated
// after a crash replaces what the crash left), and removals also remove the
// level directories they leave empty, up to the component directory. The
// journal is the file JournalName in the directory State, the checkout's
// local state (NewDirOps).
type DirOps struct {
	Root  string
	State string
}

// NewDirOps returns the DirOps of the repository at root, with its journal
// in the checkout's local state (package localstate).
func NewDirOps(root string) (DirOps, error) {
	state, err := localstate.Dir(root)
	if err != nil {
		return DirOps{}, fmt.Errorf("locating the local state of %s: %w", root, err)
	}
	return DirOps{Root: root, State: state}, nil
}

func (d DirOps) do(fn func(r *os.Root) error) error {
	r, err := os.OpenRoot(d.Root)
	if err != nil {
		return err
	}
	defer r.Close()
	return fn(r)
}

// WriteFile writes data to name atomically, creating directories.
func (d DirOps) WriteFile(name string, data []byte) error {
	return d.do(func(r *os.Root) error { return atomicfile.WriteFile(r, name, data) })
}

// Remove removes name (a missing file is not an error) and the level
// directories it leaves empty.
func (d DirOps) Remove(name string) error {
	return d.do(func(r *os.Root) error {
		if err := r.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		// config/<type>/<component>/<level>...: stop at the component.
		for dir := path.Dir(name); strings.Count(dir, "/") > 2; dir = path.Dir(dir) {
			if r.Remove(dir) != nil {
				break
			}
		}
		return nil
	})
}

// ReadFile reads name. A name with a symbolic link on its way is refused
// (*atomicfile.SymlinkError): Apply reads every file it will change before
// writing its journal, so a promotion that would have to write through a
// link is refused before anything is done.
func (d DirOps) ReadFile(name string) ([]byte, error) {
	var data []byte
	err := d.do(func(r *os.Root) error {
		if _, err := atomicfile.CheckPath(r, name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		var err error
		data, err = r.ReadFile(name)
		return err
	})
	return data, err
}

func (d DirOps) journal() (string, error) {
	if d.State == "" {
		return "", errors.New("no local state directory for the promotion journal")
	}
	return filepath.Join(d.State, JournalName), nil
}

// WriteJournal writes the journal atomically.
func (d DirOps) WriteJournal(data []byte) error {
	p, err := d.journal()
	if err != nil {
		return err
	}
	return atomicfile.WriteAt(p, data)
}

// ReadJournal reads the journal.
func (d DirOps) ReadJournal() ([]byte, error) {
	p, err := d.journal()
	if err != nil {
		return nil, err
	}
	return os.ReadFile(p)
}

// RemoveJournal removes the journal; a missing one is not an error.
func (d DirOps) RemoveJournal() error {
	p, err := d.journal()
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
