package output

import (
	"os"

	"github.com/strata-fleet/strata/internal/localstate"
)

// stateVersion changes when State's encoding does.
const stateVersion = 4

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
}

// Stamp identifies the version of a file on disk, as Git's index does: a
// file replaced (by a link, or by another file of the same size and time)
// has another inode or change time.
type Stamp struct {
	Name  string // relative to the target directory, slash path
	Size  int64
	MTime int64 // nanoseconds
	Ino   uint64
	CTime int64 // nanoseconds
}

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

func stamp(e entry) Stamp {
	ino, ctime := fileID(e.Info)
	return Stamp{Name: e.Name, Size: e.Info.Size(), MTime: e.Info.ModTime().UnixNano(), Ino: ino, CTime: ctime}
}

// Forget drops every target not in keep.
func (s *State) Forget(keep map[string]bool) {
	for dir := range s.Targets {
		if !keep[dir] {
			delete(s.Targets, dir)
		}
	}
}
