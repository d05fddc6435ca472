package writer

import (
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/git"
)

// Several patches' first copies can be written by hand at once, none
// committed. Each rollout commits its own as its first step, with
// rendered/ as it is without the others': a commit whose rendered/
// followed another patch's uncommitted file would publish that patch
// under this one's step (a target's values.yaml holds every component).
// So while other first copies are there (the rollout's look at the work tree finds them),
// each step renders a view of the work tree that hides them (HidingFS),
// without the render state (which records what it read, not what it
// hid), and its commit excludes them; the other rollouts find their files
// still uncommitted and do the same.

// OtherFirstCopies are the files of dirty (git status lines) that git does
// not track and that are a patch's files (patch-*.yaml under a component
// of config/) of another patch than <clusterType>/<component>/<patch>:
// first copies written by hand, which that patch's rollout commits.
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
