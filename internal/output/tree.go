package output

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/strata-fleet/strata/internal/atomicfile"
)

// tree reads the repository's rendered/ through its os.Root and refuses
// anything but directories and regular files: a symbolic link committed
// anywhere in rendered/ (rendered/ itself, a target's directory, templates/,
// a file) is an error that names it, found before anything is written.
//
// It keeps the directories above targets open (as os.Roots), so that each
// look-up resolves one name from its parent instead of walking the path.
type tree struct {
	root *os.Root
	mu   sync.Mutex
	dirs map[string]*dirState // checked directories
}

type dirState struct {
	exists bool
	err    error
	r      *os.Root // opened by sub, closed by close
}

func newTree(root *os.Root) *tree {
	return &tree{root: root, dirs: map[string]*dirState{".": {exists: true, r: root}}}
}

// close closes the directories t opened.
func (t *tree) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for name, st := range t.dirs {
		if st.r != nil && name != "." {
			st.r.Close()
		}
	}
	t.dirs = map[string]*dirState{".": {exists: true, r: t.root}}
}

// dir reports whether dir (a slash path relative to the root) is a
// directory, checking every component on the way: a component that is a
// link, or not a directory, is an error.
func (t *tree) dir(dir string) (bool, error) {
	t.mu.Lock()
	st, ok := t.dirs[dir]
	t.mu.Unlock()
	if ok {
		return st.exists, st.err
	}
	exists, err := t.dir(path.Dir(dir))
	if exists && err == nil {
		var parent *os.Root
		if parent, err = t.sub(path.Dir(dir)); err == nil {
			exists, err = lstatDir(parent, path.Base(dir), dir)
		}
	}
	t.mu.Lock()
	if t.dirs[dir] == nil {
		t.dirs[dir] = &dirState{exists: exists, err: err}
	}
	t.mu.Unlock()
	return exists, err
}

// sub returns the directory dir, which dir reported to exist, opened and
// kept open.
func (t *tree) sub(dir string) (*os.Root, error) {
	t.mu.Lock()
	st := t.dirs[dir]
	t.mu.Unlock()
	if st != nil && st.r != nil {
		return st.r, nil
	}
	parent, err := t.sub(path.Dir(dir))
	if err != nil {
		return nil, err
	}
	r, err := parent.OpenRoot(path.Base(dir))
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if st := t.dirs[dir]; st != nil && st.r != nil {
		r.Close()
		return st.r, nil
	}
	t.dirs[dir] = &dirState{exists: true, r: r}
	return r, nil
}

// open opens the directory dir, which dir reported to exist, for the
// caller to close.
func (t *tree) open(dir string) (*os.Root, error) {
	parent, err := t.sub(path.Dir(dir))
	if err != nil {
		return nil, err
	}
	return parent.OpenRoot(path.Base(dir))
}

// lstatDir reports whether name in parent (full, for errors) is a
// directory; a link or another file is an error.
func lstatDir(parent *os.Root, name, full string) (bool, error) {
	info, err := parent.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, err
	case info.Mode()&fs.ModeSymlink != 0:
		return false, &atomicfile.SymlinkError{Path: full}
	case !info.IsDir():
		return false, fmt.Errorf("%s is not a directory (strata writes rendered files there): remove it", full)
	}
	return true, nil
}

// entry is a regular file found under a directory.
type entry struct {
	Name string // slash path relative to the directory
	Info fs.FileInfo
}

// files lists the regular files under the directory dir, which dir
// reported to exist, sorted by name. Links and other special files are
// errors.
func (t *tree) files(dir string) ([]entry, error) {
	files, _, err := t.list(dir)
	return files, err
}

// list lists the regular files under the directory dir, which dir
// reported to exist, and the directories (dir itself as "."), each sorted
// by name. Links and other special files are errors.
func (t *tree) list(dir string) (files, dirs []entry, err error) {
	sub, err := t.open(dir)
	if err != nil {
		return nil, nil, err
	}
	defer sub.Close()
	self, err := sub.Lstat(".")
	if err != nil {
		return nil, nil, err
	}
	dirs = []entry{{Name: ".", Info: self}}
	var walk func(rel string) error
	walk = func(rel string) error {
		des, err := readDir(sub, rel)
		if err != nil {
			return err
		}
		for _, de := range des {
			name := path.Join(rel, de.Name())
			switch {
			case de.Type()&fs.ModeSymlink != 0:
				return &atomicfile.SymlinkError{Path: path.Join(dir, name)}
			case !de.IsDir() && !de.Type().IsRegular():
				return fmt.Errorf("%s is not a regular file: remove it", path.Join(dir, name))
			}
			info, err := de.Info()
			if err != nil {
				return err
			}
			if de.IsDir() {
				dirs = append(dirs, entry{Name: name, Info: info})
				if err := walk(name); err != nil {
					return err
				}
				continue
			}
			files = append(files, entry{Name: name, Info: info})
		}
		return nil
	}
	if err := walk("."); err != nil {
		return nil, nil, err
	}
	byName := func(a, b entry) int { return strings.Compare(a.Name, b.Name) }
	slices.SortFunc(files, byName)
	slices.SortFunc(dirs, byName)
	return files, dirs, nil
}

// readDir lists the directory dir of r (entries of links are links).
func readDir(r *os.Root, dir string) ([]fs.DirEntry, error) {
	f, err := r.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}
