package output

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/strata-fleet/strata/internal/atomicfile"
	"github.com/strata-fleet/strata/internal/localstate"
)

// stateVersion changes when State's encoding does.
const stateVersion = 2

// State is what the last render knew about each target's files.
type State struct {
	Version int
	Targets map[string]TargetState // by target directory, slash path
}

// TargetState is a target's input fingerprint and its files as written.
type TargetState struct {
	Fingerprint [32]byte
	Files       []Stamp // sorted by Name
}

// Stamp identifies the version of a file on disk, as Git's index does.
type Stamp struct {
	Name  string // relative to the target directory, slash path
	Size  int64
	MTime int64 // nanoseconds
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

// Save writes the state atomically.
func (s *State) Save(path string) error {
	return atomicfile.WriteAt(path, s.encode())
}

// Current reports whether the target directory dir under root still holds
// exactly the files the state recorded for fingerprint fp.
func (s *State) Current(root, dir string, fp [32]byte) bool {
	ts, ok := s.Targets[dir]
	if !ok || ts.Fingerprint != fp {
		return false
	}
	names, err := listFiles(filepath.Join(root, filepath.FromSlash(dir)))
	if err != nil || len(names) != len(ts.Files) {
		return false
	}
	for i, st := range ts.Files {
		if names[i] != st.Name {
			return false
		}
		info, err := os.Lstat(filepath.Join(root, filepath.FromSlash(dir), filepath.FromSlash(st.Name)))
		if err != nil || !info.Mode().IsRegular() || info.Size() != st.Size || info.ModTime().UnixNano() != st.MTime {
			return false
		}
	}
	return true
}

// Record stamps the files of the target directory dir as they are now.
func (s *State) Record(root, dir string, fp [32]byte) error {
	names, err := listFiles(filepath.Join(root, filepath.FromSlash(dir)))
	if err != nil {
		return err
	}
	ts := TargetState{Fingerprint: fp}
	for _, n := range names {
		info, err := os.Lstat(filepath.Join(root, filepath.FromSlash(dir), filepath.FromSlash(n)))
		if err != nil {
			return err
		}
		ts.Files = append(ts.Files, Stamp{Name: n, Size: info.Size(), MTime: info.ModTime().UnixNano()})
	}
	s.Targets[dir] = ts
	return nil
}

// Forget drops every target not in keep and returns how many it dropped.
func (s *State) Forget(keep map[string]bool) int {
	n := 0
	for dir := range s.Targets {
		if !keep[dir] {
			delete(s.Targets, dir)
			n++
		}
	}
	return n
}

// listFiles lists the files under dir, recursively, as sorted slash paths.
func listFiles(dir string) ([]string, error) {
	var out []string
	var walk func(rel string) error
	walk = func(rel string) error {
		entries, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		for _, e := range entries {
			name := e.Name()
			if rel != "" {
				name = rel + "/" + name
			}
			if e.IsDir() {
				if err := walk(name); err != nil {
					return err
				}
				continue
			}
			out = append(out, name)
		}
		return nil
	}
	if err := walk(""); err != nil {
		return nil, fmt.Errorf("listing %s: %w", dir, err)
	}
	slices.Sort(out)
	return out, nil
}
