package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"syscall"
)

// Modes of what WriteFile creates.
const (
	FileMode fs.FileMode = 0o644
	DirMode  fs.FileMode = 0o755
)

// ErrSymlink is what a *SymlinkError matches with errors.Is.
var ErrSymlink = errors.New("symbolic link")

// SymlinkError reports a name that strata refuses to write through because
// Path, one of its components, is a symbolic link.
type SymlinkError struct {
	Path string // slash path relative to the root
}

func (e *SymlinkError) Error() string {
	return fmt.Sprintf("%s is a symbolic link: strata does not write through links (replace it with a directory or file, or remove it)", e.Path)
}

// Is makes errors.Is(err, ErrSymlink) true.
func (e *SymlinkError) Is(target error) bool { return target == ErrSymlink }

// TempName is the temporary file WriteFile writes name's content to before
// renaming it: a hidden file in the same directory.
func TempName(name string) string {
	return path.Join(path.Dir(name), "."+path.Base(name)+".strata-tmp")
}

// WriteFile writes data to name (a slash path relative to root) atomically,
// creating missing directories.
func WriteFile(root *os.Root, name string, data []byte) error {
	return Write(root, name, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write writes what fill writes to name atomically, creating missing
// directories. When fill fails, name is left as it was.
func Write(root *os.Root, name string, fill func(io.Writer) error) error {
	mode, err := CheckPath(root, name)
	if err != nil {
		return err
	}
	dir := path.Dir(name)
	if err := MkdirAll(root, dir); err != nil {
		return err
	}
	tmp := TempName(name)
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, FileMode)
	if err != nil {
		return err
	}
	ferr := fill(f)
	if err := errors.Join(ferr, f.Chmod(mode), f.Sync(), f.Close()); err != nil {
		root.Remove(tmp)
		return err
	}
	if err := root.Rename(tmp, name); err != nil {
		root.Remove(tmp)
		return err
	}
	return SyncDir(root, dir)
}

// CheckPath returns an error when a component of name that exists is a
// symbolic link (*SymlinkError), when a directory component is not a
// directory, or when name is a directory; otherwise the permission bits a
// write of name gives it: those of the file it replaces, else FileMode.
func CheckPath(root *os.Root, name string) (fs.FileMode, error) {
	if !fs.ValidPath(name) || name == "." {
		return 0, fmt.Errorf("%q: not a file name relative to the root", name)
	}
	for i := 0; i <= len(name); i++ {
		if i < len(name) && name[i] != '/' {
			continue
		}
		p := name[:i]
		info, err := root.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return FileMode, nil
		}
		if err != nil {
			return 0, err
		}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			return 0, &SymlinkError{Path: p}
		case i < len(name) && !info.IsDir():
			return 0, fmt.Errorf("%s is not a directory", p)
		case i == len(name) && !info.Mode().IsRegular():
			return 0, fmt.Errorf("%s is not a regular file", p)
		case i == len(name):
			return info.Mode().Perm(), nil
		}
	}
	return FileMode, nil
}

// MkdirAll creates the directory dir (a slash path relative to root) and
// its missing parents with mode DirMode, whatever the umask. A component
// that is a symbolic link is refused.
func MkdirAll(root *os.Root, dir string) error {
	if dir == "." {
		return nil
	}
	for i := 0; i <= len(dir); i++ {
		if i < len(dir) && dir[i] != '/' {
			continue
		}
		p := dir[:i]
		err := root.Mkdir(p, DirMode)
		if err == nil {
			if err := root.Chmod(p, DirMode); err != nil {
				return err
			}
			continue
		}
		if !errors.Is(err, fs.ErrExist) {
			return err
		}
		info, lerr := root.Lstat(p)
		switch {
		case lerr != nil:
			return lerr
		case info.Mode()&fs.ModeSymlink != 0:
			return &SymlinkError{Path: p}
		case !info.IsDir():
			return fmt.Errorf("%s is not a directory", p)
		}
	}
	return nil
}

// SyncDir flushes the directory dir's entries (a rename into it) to disk.
func SyncDir(root *os.Root, dir string) error {
	d, err := root.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, errors.ErrUnsupported) || errors.Is(err, syscall.EINVAL) {
		return nil
	}
	return err
}

// WriteAt writes data to the file at path, anywhere on the system, through
// a root opened on its directory: the final name is still never a link.
// For files outside any repository, such as strata's local state.
func WriteAt(file string, data []byte) error {
	dir, base := filepath.Dir(file), filepath.Base(file)
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	return WriteFile(root, base, data)
}
