package output

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/strata-fleet/strata/internal/atomicfile"
	"github.com/strata-fleet/strata/internal/render"
)

// A target's files beside its directory (render.Output.Beside: the plain
// values file of layout.values) are its own, under the output root: each
// is compared with what the output root holds, staged as a file of its own
// when it changed and switched into place with the target's directory under
// the same journal (a rename, or an exchange, of the file), and, in a whole
// run, kept from the stale files (targetDirs lists it). The render state
// stamps it with its target (TargetState.Beside): a values file edited or
// removed by hand makes its target render again, and is written back.

// beside compares the files of a target beside its directory with the
// output root and stages those that changed.
func (w *writer) beside(files []render.File) error {
	var changes []Change
	unchanged := 0
	for _, f := range files {
		op, err := w.besideOp(f)
		if err != nil {
			return err
		}
		if op == "" {
			unchanged++
			continue
		}
		changes = append(changes, Change{Op: op, Path: f.Path})
		if w.stage == nil {
			continue
		}
		staged := ""
		if w.first {
			staged = w.firstDir + "/" + strings.TrimPrefix(f.Path, w.outRoot+"/")
			err = w.stage.mkdirAll(path.Dir(staged))
		} else {
			staged = w.stage.add(f.Path)
		}
		if err == nil {
			err = w.stage.ops.WriteFile(w.root, staged, f.Data)
		}
		if err != nil {
			return fmt.Errorf("staging %s: %w", f.Path, err)
		}
	}
	w.record("", changes, unchanged)
	return nil
}

// besideOp returns what the file f needs: Create, Update, or "" when the
// output root holds it as rendered. A link, or anything but a regular
// file, at its path or on the way to it is an error naming it.
func (w *writer) besideOp(f render.File) (Op, error) {
	if w.first {
		return Create, nil
	}
	exists, err := w.tree.dir(path.Dir(f.Path))
	if err != nil || !exists {
		return Create, err
	}
	info, err := w.root.Lstat(f.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Create, nil
	case err != nil:
		return "", err
	case info.Mode()&fs.ModeSymlink != 0:
		return "", &atomicfile.SymlinkError{Path: f.Path}
	case !info.Mode().IsRegular():
		return "", fmt.Errorf("%s is not a regular file (strata writes a values file there): remove it", f.Path)
	case info.Size() != int64(len(f.Data)):
		return Update, nil
	}
	have, err := w.root.ReadFile(f.Path)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", f.Path, err)
	}
	if bytes.Equal(have, f.Data) {
		return "", nil
	}
	return Update, nil
}
