package writer

import (
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/git"
)

// Several patches' first copies can be written by hand at once. Each
// rollout commits its own as its first step, rendered without the others'
// (which its commit would publish): while they are there each step renders
// a view that hides them (HidingFS), without the render state, and its
// commit excludes them.

// OtherFirstCopies are the untracked patch files among dirty (git status
// lines) of another patch than <clusterType>/<component>/<patch>.
func OtherFirstCopies(clusterType, component, patch string, dirty []string) []string {
	own := "config/" + clusterType + "/" + component + "/"
	name := strings.TrimSuffix(patch, ".yaml") + ".yaml"
	var out []string
	for _, l := range dirty {
		p := git.DirtyPath(l)
		base := path.Base(p)
		if !strings.HasPrefix(l, "?? ") || !strings.HasPrefix(p, "config/") || strings.Count(p, "/") < 4 ||
			!strings.HasPrefix(base, "patch-") || path.Ext(base) != ".yaml" ||
			(strings.HasPrefix(p, own) && base == name) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// OwnFirstCopies are the files of dirty that git does not track and that
// are the patch's own files: its first copies, written by hand.
func OwnFirstCopies(clusterType, component, patch string, dirty []string) []string {
	own := "config/" + clusterType + "/" + component + "/"
	name := strings.TrimSuffix(patch, ".yaml") + ".yaml"
	var out []string
	for _, l := range dirty {
		if p := git.DirtyPath(l); strings.HasPrefix(l, "?? ") && strings.HasPrefix(p, own) && path.Base(p) == name {
			out = append(out, p)
		}
	}
	return out
}

// HidingFS is a file system without the files Hide names.
type HidingFS struct {
	fs.FS
	Hide []string
}

func (h HidingFS) Open(name string) (fs.File, error) {
	if slices.Contains(h.Hide, name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return h.FS.Open(name)
}

func (h HidingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	es, err := fs.ReadDir(h.FS, name)
	return slices.DeleteFunc(es, func(e fs.DirEntry) bool { return slices.Contains(h.Hide, path.Join(name, e.Name())) }), err
}

func (h HidingFS) Stat(name string) (fs.FileInfo, error) {
	if slices.Contains(h.Hide, name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return fs.Stat(h.FS, name)
}

func (h HidingFS) ReadFile(name string) ([]byte, error) {
	if slices.Contains(h.Hide, name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return fs.ReadFile(h.FS, name)
}
