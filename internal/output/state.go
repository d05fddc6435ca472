package output

import (
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/localstate"
	"github.com/strata-fleet/strata/internal/treestamp"
)

// stateVersion changes when State's encoding does.
const stateVersion = 6

// State is what the last render knew about each target's files.
type State struct {
	Version int
	Targets map[string]TargetState // by target directory, slash path
}

// TargetState is a target's input fingerprint and its files and
// directories as written.
type TargetState struct {
	Fingerprint [32]byte
	Files       []Stamp // sorted by Name
	// Dirs are the target's directory (".") and those under it, sorted by
	// Name: while a directory's stamp is unchanged, so are its entries
	// (see stampsCurrent).
	Dirs []Stamp
	// Beside are the target's files beside its directory (its values
	// file: layout.values), named by their paths in the repository.
	Beside []Stamp
}

// A Stamp is a file's or directory's stamp, as package treestamp takes it.
type Stamp = treestamp.Stamp

// StatePath returns where the state of the repository at root is kept: in
// its local state (package localstate), outside the repository.
func StatePath(root string) (string, error) {
	return localstate.Path(root, "render.state")
}

// LoadState reads the state at path; a missing or unreadable state is empty.
func LoadState(path string) *State {
	s := &State{Version: stateVersion, Targets: map[string]TargetState{}}
	data, err := os.ReadFile(path)
	if err != nil {
		return s
	}
	loaded, err := decodeState(data)
	if err != nil || loaded.Version != stateVersion {
		return s
	}
	return loaded
}

// onDisk reports whether the target directory dir still holds exactly the
// files the state recorded for it: the same names, each a regular file with
// the recorded size, time and inode, reached through real directories only.
// The state never vouches for what strata did not write: a link or a
// replaced file anywhere makes the target render again.
func (s *State) onDisk(t *tree, dir string) bool {
	ts, ok := s.Targets[dir]
	if !ok {
		return false
	}
	if exists, err := t.dir(dir); !exists || err != nil {
		return false
	}
	for _, st := range ts.Beside {
		if now, err := stampBeside(t, st.Name); err != nil || now != st {
			return false
		}
	}
	if stampsCurrent(t, dir, ts) {
		return true
	}
	files, err := t.files(dir)
	if err != nil || len(files) != len(ts.Files) {
		return false
	}
	for i, st := range ts.Files {
		if stamp(files[i]) != st {
			return false
		}
	}
	return true
}

// stamped returns the state of the target directory dir as it is now, for
// the fingerprint fp.
func stamped(t *tree, dir string, fp [32]byte) (TargetState, error) {
	files, dirs, err := t.list(dir)
	if err != nil {
		return TargetState{}, err
	}
	ts := TargetState{Fingerprint: fp, Files: make([]Stamp, len(files)), Dirs: make([]Stamp, len(dirs))}
	for i, f := range files {
		ts.Files[i] = stamp(f)
	}
	for i, d := range dirs {
		ts.Dirs[i] = stamp(d)
	}
	return ts, nil
}

// stagedStamps is what staging a target learnt of the stamps its tree has
// once switched into rendered/: those of the files it wrote and of the
// directories under the target's, taken as they were staged (nothing
// changes them after: the switch moves the target's directory, not what it
// holds), and the names of the files it linked, whose change time moves
// again when the old tree they were linked from is removed. After the
// switch and the clean-up, stamped completes them with the target's
// directory and the linked files: a stat each, instead of listing the
// target and stat-ing every file. Where files are written by path
// (!atSupported), staging learns nothing and the target is listed.
type stagedStamps struct {
	files  []Stamp
	dirs   []Stamp // without "."
	linked []string
}

// stamped returns the state of the target directory dir, staged as s, as
// it is now, for the fingerprint fp.
func (s stagedStamps) stamped(t *tree, dir string, fp [32]byte) (TargetState, error) {
	self, err := t.lstat(dir)
	if err != nil {
		return TargetState{}, err
	}
	if !self.IsDir() {
		return TargetState{}, fmt.Errorf("%s is not a directory", dir)
	}
	ts := TargetState{Fingerprint: fp, Files: slices.Clip(s.files), Dirs: slices.SortedFunc(slices.Values(s.dirs), byWalk)}
	ts.Dirs = slices.Insert(ts.Dirs, 0, stamp(entry{Name: ".", Info: self}))
	if len(s.linked) > 0 {
		sub, err := t.open(dir)
		if err != nil {
			return TargetState{}, err
		}
		defer sub.Close()
		for _, name := range s.linked {
			info, err := sub.Lstat(name)
			if err != nil {
				return TargetState{}, err
			}
			if !info.Mode().IsRegular() {
				return TargetState{}, fmt.Errorf("%s/%s is not a regular file", dir, name)
			}
			ts.Files = append(ts.Files, stamp(entry{Name: name, Info: info}))
		}
	}
	slices.SortFunc(ts.Files, byWalk)
	return ts, nil
}

// byWalk orders stamps as tree.list lists what they stamp: by name in each
// directory, with the entries of a directory right after it.
func byWalk(a, b Stamp) int {
	x, y := a.Name, b.Name
	for {
		i, j := strings.IndexByte(x, '/'), strings.IndexByte(y, '/')
		xe, ye := x, y // the first component of each
		if i >= 0 {
			xe = x[:i]
		}
		if j >= 0 {
			ye = y[:j]
		}
		switch c := strings.Compare(xe, ye); {
		case c != 0:
			return c
		case i < 0 && j < 0:
			return 0
		case i < 0: // a directory before what it holds
			return -1
		case j < 0:
			return 1
		}
		x, y = x[i+1:], y[j+1:]
	}
}

func stamp(e entry) Stamp { return treestamp.Of(e.Name, e.Info) }

// stampBeside returns the stamp of the file p beside a target's directory
// (its values file), reached through real directories only; an error when
// it is missing or not a regular file.
func stampBeside(t *tree, p string) (Stamp, error) {
	if exists, err := t.dir(path.Dir(p)); err != nil {
		return Stamp{}, err
	} else if !exists {
		return Stamp{}, fmt.Errorf("%s: its directory is missing", p)
	}
	info, err := t.lstat(p)
	if err != nil {
		return Stamp{}, err
	}
	if !info.Mode().IsRegular() {
		return Stamp{}, fmt.Errorf("%s is not a regular file", p)
	}
	return stamp(entry{Name: p, Info: info}), nil
}

// lstat is Lstat of the slash path p, in its directory's root.
func (t *tree) lstat(p string) (os.FileInfo, error) {
	parent, err := t.sub(path.Dir(p))
	if err != nil {
		return nil, err
	}
	return parent.Lstat(path.Base(p))
}

// racy reports whether a change to one of ts's files or directories after
// the clock read clock could keep its stamp (treestamp's rule).
func (ts TargetState) racy(clock int64) bool {
	for _, stamps := range [][]Stamp{ts.Dirs, ts.Files, ts.Beside} {
		for _, s := range stamps {
			if s.Racy(clock) {
				return true
			}
		}
	}
	return false
}

// Forget drops every target not in keep.
func (s *State) Forget(keep map[string]bool) {
	for dir := range s.Targets {
		if !keep[dir] {
			delete(s.Targets, dir)
		}
	}
}
