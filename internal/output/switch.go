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

type journal struct {
	Version int           `json:"version"`
	Entries []switchEntry `json:"entries"`
}

const journalVersion = 1

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
	for i, e := range j.Entries {
		if e.Staged == "" {
			continue
		}
		info, err := s.root.Lstat(e.Staged)
		if err != nil {
			return fmt.Errorf("staging %s: %w", e.Path, err)
		}
		j.Entries[i].Ino, _ = fileID(info)
	}
	data, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	if err := s.ops.WriteAtomic(s.root, journalName, data); err != nil {
		return fmt.Errorf("writing the render journal %s: %w", journalName, err)
	}
	if err := replay(s.root, s.ops, t, j); err != nil {
		return fmt.Errorf("%w (the switch is recorded in %s: the next strata render completes it)", err, journalName)
	}
	s.cleanUp()
	return nil
}

// cleanUp removes the journal, then the staging area with the trees
// replaced. A failure here leaves rendered/ complete; the next run removes
// what is left.
func (s *stage) cleanUp() {
	err := s.ops.Remove(s.root, journalName)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		err = s.ops.RemoveAll(s.root, stagingDir)
	}
	if err != nil {
		slog.Warn("could not remove the staging area; the next render does", "dir", stagingDir, "err", err)
	}
}

// replay performs the steps of j that are not done yet.
func replay(root *os.Root, ops fileOps, t *tree, j journal) error {
	for _, e := range j.Entries {
		exists, err := t.dir(path.Dir(e.Path))
		switch {
		case err != nil:
			return err
		case e.Staged == "" && exists:
			err = removeStale(root, ops, e)
		case e.Staged != "":
			if err = mkdirAll(root, ops, t, path.Dir(e.Path)); err == nil {
				err = switchTree(root, ops, e)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

var (
	stagedName = regexp.MustCompile(`^` + regexp.QuoteMeta(stagingDir) + `/new/[0-9]+$`)
	oldName    = regexp.MustCompile(`^` + regexp.QuoteMeta(stagingDir) + `/old/[0-9]+$`)
)

// check refuses a step that a run never records: a journal is a file in
// the repository that anyone can write.
func (e switchEntry) check() error {
	inRendered := e.Path == render.OutputDir || strings.HasPrefix(e.Path, render.OutputDir+"/")
	if !fs.ValidPath(e.Path) || !inRendered || !oldName.MatchString(e.Old) ||
		(e.Staged != "" && (!stagedName.MatchString(e.Staged) || e.Ino == 0)) {
		return fmt.Errorf("a step (%s) that strata never records", e.Path)
	}
	return nil
}

// switchTree moves the staged tree of e into place, unless it is there.
func switchTree(root *os.Root, ops fileOps, e switchEntry) error {
	cur, err := root.Lstat(e.Path)
	if err == nil && sameTree(cur, e.Ino) {
		return nil // done
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	staged, serr := root.Lstat(e.Staged)
	if serr != nil || !sameTree(staged, e.Ino) {
		// Not the tree this journal staged: the next render's own
		// plan brings the target up to date.
		slog.Debug("a staged tree of the journal is gone; the target renders again", "path", e.Path)
		return nil
	}
	if err == nil {
		if cur.Mode()&fs.ModeSymlink != 0 {
			return &atomicfile.SymlinkError{Path: e.Path}
		}
		xerr := ops.Exchange(root, e.Staged, e.Path)
		if !errors.Is(xerr, errors.ErrUnsupported) {
			if xerr != nil {
				return fmt.Errorf("switching %s: %w", e.Path, xerr)
			}
			return nil
		}
		if err := ops.Rename(root, e.Path, e.Old); err != nil {
			return fmt.Errorf("switching %s: %w", e.Path, err)
		}
	}
	if err := ops.Rename(root, e.Staged, e.Path); err != nil {
		return fmt.Errorf("switching %s: %w", e.Path, err)
	}
	return nil
}

// sameTree reports whether info is of the staged tree with inode ino.
func sameTree(info fs.FileInfo, ino uint64) bool {
	got, _ := fileID(info)
	return got == ino
}

// removeStale moves the stale e.Path out of rendered/, if it is there.
func removeStale(root *os.Root, ops fileOps, e switchEntry) error {
	if _, err := root.Lstat(e.Path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := ops.Rename(root, e.Path, e.Old); err != nil {
		return fmt.Errorf("removing stale %s: %w", e.Path, err)
	}
	return nil
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

// legacyStaging is the staging directory of strata before the staging
// area: a first render's .rendered-NNN in the repository root.
var legacyStaging = regexp.MustCompile(`^\.rendered-[0-9]+$`)

// recoverStage completes the switch an interrupted run recorded, then
// removes what interrupted runs left: the staging area and older staging
// directories. It reports whether it completed a switch.
func recoverStage(root *os.Root, ops fileOps) (bool, error) {
	resumed := false
	info, err := root.Lstat(stagingDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return false, err
	case info.Mode()&fs.ModeSymlink != 0 || !info.IsDir():
		return false, fmt.Errorf("%s is not a directory: strata keeps its staging area there; remove it", stagingDir)
	default:
		if j, ok := readJournal(root); ok {
			t := newTree(root)
			err := replay(root, ops, t, j)
			t.close()
			if err != nil {
				return false, fmt.Errorf("completing the interrupted render: %w", err)
			}
			resumed = true
		}
		if err := ops.Remove(root, journalName); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
		if err := ops.RemoveAll(root, stagingDir); err != nil {
			return false, fmt.Errorf("removing the staging area of an interrupted render: %w", err)
		}
	}
	des, err := fs.ReadDir(root.FS(), ".")
	if err != nil {
		return resumed, err
	}
	for _, de := range des {
		if de.IsDir() && legacyStaging.MatchString(de.Name()) {
			if err := ops.RemoveAll(root, de.Name()); err != nil {
				return resumed, fmt.Errorf("removing %s, left by an interrupted render: %w", de.Name(), err)
			}
		}
	}
	return resumed, nil
}

// readJournal reads the journal of the staging area; false when there is
// none, or it is not one strata wrote (torn writes never reach its name; a
// journal committed to the repository holds steps strata never records, or
// inodes of trees that are not there, and does nothing).
func readJournal(root *os.Root) (journal, bool) {
	var j journal
	data, err := root.ReadFile(journalName)
	if err != nil || json.Unmarshal(data, &j) != nil || j.Version != journalVersion {
		return journal{}, false
	}
	for _, e := range j.Entries {
		if err := e.check(); err != nil {
			slog.Warn("ignoring a render journal that strata did not write", "journal", journalName, "err", err)
			return journal{}, false
		}
	}
	return j, true
}
