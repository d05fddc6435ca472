package fleet

// Reading the repository: directory listings and files through the fleet's
// fs.FS, with symbolic links checked and I/O errors explained.

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/strata-fleet/strata/internal/values"
)

// readDir lists dir, resolving symbolic links that stay inside the
// repository and refusing those that leave it.
func (l *loader) readDir(dir string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(l.fsys, dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, readError(l.fsys, dir, err)
	}
	out := entries[:0]
	for _, e := range entries {
		if e.Type()&fs.ModeSymlink == 0 {
			out = append(out, e)
			continue
		}
		p := dir + "/" + e.Name()
		if err := checkLink(l.fsys, p); err != nil {
			l.fail(err)
			continue
		}
		info, err := fs.Stat(l.fsys, p)
		if err != nil {
			l.fail(readError(l.fsys, p, err))
			continue
		}
		out = append(out, fs.FileInfoToDirEntry(renamed{info, e.Name()}))
	}
	return out, nil
}

const linkHint = "strata reads only what is inside the repository: copy the file in, or make the link point inside the repository"

// checkLink refuses a symbolic link whose target is outside the repository.
func checkLink(fsys fs.FS, p string) error {
	target, err := fs.ReadLink(fsys, p)
	if err != nil {
		return &values.Error{Pos: values.Pos{File: p}, Msg: fmt.Sprintf("reading symbolic link: %v", unwrapPath(err))}
	}
	resolved := path.Join(path.Dir(p), target)
	if path.IsAbs(target) || resolved == ".." || strings.HasPrefix(resolved, "../") {
		return &values.Error{Pos: values.Pos{File: p}, Msg: fmt.Sprintf("symbolic link to %s leaves the repository", target), Hint: linkHint}
	}
	return nil
}

// readError explains a failure to read p. The repository is opened with
// os.Root, which refuses paths that resolve outside it: such an error names
// the symbolic link that leads out.
func readError(fsys fs.FS, p string, err error) error {
	if !strings.Contains(err.Error(), "path escapes from parent") {
		if errors.Is(err, fs.ErrNotExist) {
			if _, lerr := fs.ReadLink(fsys, p); lerr == nil {
				return &values.Error{Pos: values.Pos{File: p}, Msg: "broken symbolic link: its target does not exist",
					Hint: "fix or remove the link"}
			}
		}
		return &values.Error{Pos: values.Pos{File: p}, Msg: fmt.Sprintf("reading: %v", unwrapPath(err))}
	}
	var first string
	parts := strings.Split(p, "/")
	for i := range parts {
		prefix := strings.Join(parts[:i+1], "/")
		target, lerr := fs.ReadLink(fsys, prefix)
		if lerr != nil {
			continue
		}
		if e := checkLink(fsys, prefix); e != nil {
			return e
		}
		if first == "" {
			first = prefix + " -> " + target
		}
	}
	e := &values.Error{Pos: values.Pos{File: p}, Msg: "path leaves the repository through a symbolic link", Hint: linkHint}
	if first != "" {
		e.Msg += " (" + first + ")"
	}
	return e
}

// unwrapPath drops the operation and path of an *fs.PathError, which the
// message already names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

type renamed struct {
	fs.FileInfo
	name string
}

func (r renamed) Name() string { return r.name }

func (l *loader) readFile(p string) *File {
	data, err := fs.ReadFile(l.fsys, p)
	if err != nil {
		l.fail(readError(l.fsys, p, err))
		return NewFile(p, nil)
	}
	return NewFile(p, data)
}
