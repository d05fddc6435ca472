package output

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"regexp"
	"strings"

	"github.com/strata-fleet/strata/internal/atomicfile"
	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/treestamp"

	"github.com/strata-fleet/strata/internal/hint"
)

// switchEntry is one step of the switch from the old rendered/ to the new:
// the new tree staged for Path moves into place (the tree it replaces goes
// to Old), or, without Staged, the stale Path goes to Old. Ino identifies
// the staged tree wherever it is, so that a step is never done twice: a
// journal replayed after a crash finds each step done or not.
type switchEntry struct {
	Path   string `json:"path"`
	Staged string `json:"staged,omitempty"`
	Old    string `json:"old"`
	Ino    uint64 `json:"ino,omitempty"`
}

// journal is the switch recorded before its first step, in the local
// state. Staging identifies the staging area it switches from: a journal
// replays only into the very directory its run created.
type journal struct {
	Version int    `json:"version"`
	Staging uint64 `json:"staging"`
	// Root is the output root the switch is in (the fleet's layout); ""
	// for rendered/, as journals before layouts were.
	Root    string        `json:"root,omitempty"`
	Entries []switchEntry `json:"entries"`
}

const journalVersion = 2

// renderCommand is strata render, which the messages name.
var renderCommand = hint.Strata("render")

// commit switches every staged tree into place through the journal, then
// removes the staging area. The journal is written (and synced) before the
// first step, so that a run interrupted at any point is completed by the
// next one: git and Argo CD see each target's old tree or its new one,
// whole, and the next run finishes the rest.
func (s *stage) commit(t *tree) error {
	s.closeParents()
	if len(s.entries) == 0 {
		s.cleanUp()
		return nil
	}
	j := journal{Version: journalVersion, Entries: s.entries}
	if s.outRoot != render.OutputDir {
		j.Root = s.outRoot
	}
	info, err := s.root.Lstat(stagingDir)
	if err != nil {
		return fmt.Errorf("staging: %w", err)
	}
	j.Staging, _ = treestamp.ID(info)
	for i, e := range j.Entries {
		if e.Staged == "" {
			continue
		}
		info, err := s.root.Lstat(e.Staged)
		if err != nil {
			return fmt.Errorf("staging %s: %w", e.Path, err)
		}
		j.Entries[i].Ino, _ = treestamp.ID(info)
	}
	data, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	if err := s.ops.SaveState(s.journal, data); err != nil {
		return fmt.Errorf("writing the render journal %s: %w", s.journal, err)
	}
	if _, err := replay(s.root, s.ops, t, j, s.switching); err != nil {
		return hint.Errorf("%w (the switch is recorded in %s: the next %s completes it)", err, s.journal, renderCommand)
	}
	s.cleanUp()
	return nil
}

// cleanUp removes the journal, then the staging area with the trees
// replaced. A failure here leaves rendered/ complete; the next run removes
// what is left.
func (s *stage) cleanUp() {
	err := s.ops.RemoveLocal(s.journal)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		err = s.ops.RemoveAll(s.root, stagingDir)
	}
	if err != nil {
		slog.Warn("could not remove the staging area; the next render does", "dir", stagingDir, "err", err)
	}
}

// replay performs the steps of j that are not done yet, and returns the
// paths of rendered/ they switched or removed. switching, when set, is
// called before each step.
func replay(root *os.Root, ops fileOps, t *tree, j journal, switching func(string)) ([]string, error) {
	var done []string
	for _, e := range j.Entries {
		if switching != nil {
			switching(e.Path)
		}
		exists, err := t.dir(path.Dir(e.Path))
		did := false
		switch {
		case err != nil:
			return done, err
		case e.Staged == "" && exists:
			did, err = removeStale(root, ops, e)
		case e.Staged != "":
			if err = mkdirAll(root, ops, t, path.Dir(e.Path)); err == nil {
				did, err = switchTree(root, ops, e)
			}
		}
		if err != nil {
			return done, err
		}
		if did {
			done = append(done, e.Path)
		}
	}
	return done, nil
}

var (
	stagedName = regexp.MustCompile(`^` + regexp.QuoteMeta(stagingDir) + `/new/[0-9]+$`)
	oldName    = regexp.MustCompile(`^` + regexp.QuoteMeta(stagingDir) + `/old/[0-9]+$`)
)

// outRoot is the output root of the journal's switch.
func (j journal) outRoot() string {
	if j.Root == "" {
		return render.OutputDir
	}
	return j.Root
}

// check refuses a step that a run never records: a journal is a file in
// the repository that anyone can write. root is the journal's output root.
func (e switchEntry) check(root string) error {
	inRendered := e.Path == root || strings.HasPrefix(e.Path, root+"/")
	if !fs.ValidPath(e.Path) || !inRendered || !oldName.MatchString(e.Old) ||
		(e.Staged != "" && (!stagedName.MatchString(e.Staged) || e.Ino == 0)) {
		return fmt.Errorf("a step (%s) that strata never records", e.Path)
	}
	return nil
}

// switchTree moves the staged tree of e into place, unless it is there; it
// reports whether it moved it.
func switchTree(root *os.Root, ops fileOps, e switchEntry) (bool, error) {
	cur, err := root.Lstat(e.Path)
	if err == nil && sameTree(cur, e.Ino) {
		return false, nil // done
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	staged, serr := root.Lstat(e.Staged)
	if serr != nil || !sameTree(staged, e.Ino) {
		// Not the tree this journal staged: the next render's own
		// plan brings the target up to date.
		slog.Debug("a staged tree of the journal is gone; the target renders again", "path", e.Path)
		return false, nil
	}
	if err == nil {
		if cur.Mode()&fs.ModeSymlink != 0 {
			return false, &atomicfile.SymlinkError{Path: e.Path}
		}
		xerr := ops.Exchange(root, e.Staged, e.Path)
		if !errors.Is(xerr, errors.ErrUnsupported) {
			if xerr != nil {
				return false, fmt.Errorf("switching %s: %w", e.Path, xerr)
			}
			return true, nil
		}
		if err := ops.Rename(root, e.Path, e.Old); err != nil {
			return false, fmt.Errorf("switching %s: %w", e.Path, err)
		}
	}
	if err := ops.Rename(root, e.Staged, e.Path); err != nil {
		return false, fmt.Errorf("switching %s: %w", e.Path, err)
	}
	return true, nil
}

// sameTree reports whether info is of the staged tree with inode ino.
func sameTree(info fs.FileInfo, ino uint64) bool {
	got, _ := treestamp.ID(info)
	return got == ino
}

// removeStale moves the stale e.Path out of rendered/, if it is there; it
// reports whether it was.
func removeStale(root *os.Root, ops fileOps, e switchEntry) (bool, error) {
	if _, err := root.Lstat(e.Path); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err := ops.Rename(root, e.Path, e.Old); err != nil {
		return false, fmt.Errorf("removing stale %s: %w", e.Path, err)
	}
	return true, nil
}

// mkdirAll creates the directory dir of rendered/ and its missing parents.
func mkdirAll(root *os.Root, ops fileOps, t *tree, dir string) error {
	if exists, err := t.dir(dir); err != nil || exists {
		return err
	}
	if err := mkdirAll(root, ops, t, path.Dir(dir)); err != nil {
		return err
	}
	if err := ops.Mkdir(root, dir); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	t.mu.Lock()
	if t.dirs[dir] == nil || !t.dirs[dir].exists {
		t.dirs[dir] = &dirState{exists: true}
	}
	t.mu.Unlock()
	return nil
}
