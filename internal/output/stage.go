package output

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/strata-fleet/strata/internal/localstate"
	"github.com/strata-fleet/strata/internal/render"
)

// The staging area: a directory in the repository (so that its trees are
// on the same filesystem as rendered/ and move into place by rename), that
// git ignores through its own .gitignore, and that only a run holding the
// repository lock uses. A run stages the complete new tree of every
// changed target under new/, then switches them into rendered/ through
// the journal (switch.go); the trees they replace go to old/. It is removed
// at the end of a run, and whatever an interrupted run left is completed or
// removed by the next one (recoverStage). The journal is not in the
// staging area but in the local state (package localstate), outside the
// repository: nothing committed to the repository is ever replayed.
const stagingDir = ".strata-render"

// JournalPath returns where the journal of the switch of the repository
// at root is kept: in its local state, outside the repository.
func JournalPath(root string) (string, error) {
	return localstate.Path(root, "render.journal")
}

// writeIgnore makes git ignore the staging area, whatever it holds.
func writeIgnore(root *os.Root, ops fileOps) error {
	return ops.WriteFile(root, stagingDir+"/.gitignore", []byte("# strata's staging area, removed by the next strata render\n*\n"))
}

// stage is the staging area of a run that writes.
type stage struct {
	root    *os.Root
	ops     fileOps
	journal string // JournalPath
	outRoot string // the output root: the fleet's Layout.Root()
	// switching, when set, is called before each step of the switch.
	switching func(path string)

	mu      sync.Mutex
	entries []switchEntry
	made    sync.Map // directories created under the staging area
	// parents are the directories that hold staged target directories,
	// opened once (walking a path from the root for every target was a
	// good part of staging it); closeParents closes them.
	parentsMu sync.Mutex
	parents   map[string]*os.Root
}

// openStage creates the staging area. recoverStage has removed any older one.
func openStage(root *os.Root, ops fileOps, journal, outRoot string) (*stage, error) {
	s := &stage{root: root, ops: ops, journal: journal, outRoot: outRoot}
	err := ops.Mkdir(root, stagingDir)
	if err == nil {
		// First, so that git ignores the area even if the run stops here.
		err = writeIgnore(root, ops)
	}
	for _, d := range []string{"new", "old"} {
		if err == nil {
			err = ops.Mkdir(root, stagingDir+"/"+d)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("creating the staging area %s: %w", stagingDir, err)
	}
	return s, nil
}

// add reserves a staging directory for the new tree of dir (a directory
// of the output root, or the output root itself) and returns its name.
func (s *stage) add(dir string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := strconv.Itoa(len(s.entries))
	e := switchEntry{Path: dir, Staged: stagingDir + "/new/" + i, Old: stagingDir + "/old/" + i}
	s.entries = append(s.entries, e)
	return e.Staged
}

// remove records that the stale file or directory p of rendered/ goes.
func (s *stage) remove(p string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entries = append(s.entries, switchEntry{Path: p, Old: stagingDir + "/old/" + strconv.Itoa(len(s.entries))})
}

// mkdirAll creates dir (under the staging area) and its missing parents.
func (s *stage) mkdirAll(dir string) error {
	if _, ok := s.made.Load(dir); ok || dir == stagingDir+"/new" {
		return nil
	}
	if err := s.mkdirAll(path.Dir(dir)); err != nil {
		return err
	}
	if err := s.ops.Mkdir(s.root, dir); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	s.made.Store(dir, true)
	return nil
}

// writeTarget writes a target's complete new tree into the directory
// staged: the files of out (paths under the target directory dir), except
// those in same, which are unchanged and linked from dir instead (an
// unchanged file keeps its inode and time). Written content is dropped
// from memory. It returns what it learnt of the target's stamps (where
// atSupported; nothing elsewhere).
func (s *stage) writeTarget(staged, dir string, files []render.File, same map[string]bool) (stagedStamps, error) {
	sub, err := s.openNew(staged)
	if err != nil {
		return stagedStamps{}, fmt.Errorf("staging %s: %w", dir, err)
	}
	defer sub.Close()
	links := newLinker(s, dir, staged, sub)
	defer links.close()
	if atSupported {
		links.stamps.files = make([]Stamp, 0, len(files)-len(same))
	}
	subdirs := map[string]bool{".": true}
	for i, f := range files {
		rel := strings.TrimPrefix(f.Path, dir+"/")
		for _, d := range parents(rel) {
			if !subdirs[d] {
				if err := s.ops.Mkdir(sub, d); err != nil && !errors.Is(err, fs.ErrExist) {
					return stagedStamps{}, fmt.Errorf("staging %s: %w", f.Path, err)
				}
				subdirs[d] = true
			}
		}
		if same[rel] {
			err = links.link(rel)
		} else {
			err = links.write(rel, f.Data)
		}
		if err != nil {
			return stagedStamps{}, fmt.Errorf("writing %s: %w", f.Path, err)
		}
		files[i].Data = nil
	}
	// The directories under the target's are complete: nothing changes
	// their stamps any more (the switch moves the target's directory).
	for d := range subdirs {
		if d == "." || !atSupported {
			continue
		}
		info, err := sub.Lstat(d)
		if err != nil {
			return stagedStamps{}, fmt.Errorf("staging %s: %w", dir+"/"+d, err)
		}
		links.stamps.dirs = append(links.stamps.dirs, stamp(entry{Name: d, Info: info}))
	}
	return links.stamps, nil
}

// openNew creates the directory staged (under the staging area) and its
// missing parents, and opens it.
func (s *stage) openNew(staged string) (*os.Root, error) {
	dir, name := path.Dir(staged), path.Base(staged)
	if err := s.mkdirAll(dir); err != nil {
		return nil, err
	}
	s.parentsMu.Lock()
	parent, ok := s.parents[dir]
	if !ok {
		var err error
		if parent, err = s.root.OpenRoot(dir); err != nil {
			s.parentsMu.Unlock()
			return nil, err
		}
		if s.parents == nil {
			s.parents = map[string]*os.Root{}
		}
		s.parents[dir] = parent
	}
	s.parentsMu.Unlock()
	if err := s.ops.Mkdir(parent, name); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	s.made.Store(staged, true)
	return parent.OpenRoot(name)
}

// closeParents closes the directories openNew opened.
func (s *stage) closeParents() {
	s.parentsMu.Lock()
	defer s.parentsMu.Unlock()
	for _, r := range s.parents {
		r.Close()
	}
	s.parents = nil
}

// parents returns the directories of the slash path rel, outermost first.
func parents(rel string) []string {
	var out []string
	for i := range len(rel) {
		if rel[i] == '/' {
			out = append(out, rel[:i])
		}
	}
	return out
}

// discard removes the staging area of a run that failed before its switch.
func (s *stage) discard() {
	s.closeParents()
	s.ops.RemoveAll(s.root, stagingDir)
}
