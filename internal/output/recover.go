package output

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"regexp"

	"github.com/strata-fleet/strata/internal/fleet"
)

// legacyStaging is the staging directory of strata before the staging
// area: a first render's .rendered-NNN in the repository root.
var legacyStaging = regexp.MustCompile(`^\.rendered-[0-9]+$`)

// recoverStage completes the switch an interrupted run recorded in the
// journal at journalPath (in the local state), then removes what
// interrupted runs left: the journal, the staging area and older staging
// directories. It reports whether it replayed a journal, and returns the
// paths of rendered/ it switched or removed.
//
// Nothing in the work tree is trusted: only the local state's journal is
// replayed, only into the staging area its run created (the same inode,
// a directory, not a link, as are its new/ and old/), and a staging area
// without one (left by a run that stopped before its switch, or committed
// to the repository) is removed, never read. Removing does not follow
// links.
func recoverStage(root *os.Root, ops fileOps, journalPath string) (resumed bool, done []string, err error) {
	info, err := root.Lstat(stagingDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return false, nil, err
	case info.Mode()&fs.ModeSymlink != 0 || !info.IsDir():
		return false, nil, fmt.Errorf("%s is not a directory: strata keeps its staging area there; remove it", stagingDir)
	default:
		if j, ok := readJournal(root, journalPath, info); ok {
			t := newTree(root)
			done, err = replay(root, ops, t, j, nil)
			t.close()
			if err != nil {
				return false, nil, fmt.Errorf("completing the interrupted render: %w", err)
			}
			resumed = true
		}
		if err := ops.RemoveAll(root, stagingDir); err != nil {
			return false, nil, fmt.Errorf("removing the staging area of an interrupted render: %w", err)
		}
	}
	// The journal goes once its switch is done, or when there is no
	// staging area it could replay into.
	if err := ops.RemoveLocal(journalPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, nil, err
	}
	des, err := fs.ReadDir(root.FS(), ".")
	if err != nil {
		return false, nil, err
	}
	for _, de := range des {
		if de.IsDir() && legacyStaging.MatchString(de.Name()) {
			if err := ops.RemoveAll(root, de.Name()); err != nil {
				return false, nil, fmt.Errorf("removing %s, left by an interrupted render: %w", de.Name(), err)
			}
		}
	}
	return resumed, done, nil
}

// readJournal reads the journal at path; false when there is none, or it
// is not one strata wrote for the staging area staging (torn writes never
// reach its name; steps strata never records, a staging area of another
// inode, new/ or old/ that are not directories, and it does nothing).
func readJournal(root *os.Root, path string, staging fs.FileInfo) (journal, bool) {
	var j journal
	data, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(data, &j) != nil || j.Version != journalVersion {
		return journal{}, false
	}
	if !sameTree(staging, j.Staging) {
		slog.Warn("ignoring a render journal of another staging area", "journal", path, "staging", stagingDir)
		return journal{}, false
	}
	for _, d := range []string{stagingDir + "/new", stagingDir + "/old"} {
		if info, err := root.Lstat(d); err != nil || !info.IsDir() {
			slog.Warn("ignoring a render journal whose staging area is not strata's", "journal", path, "dir", d)
			return journal{}, false
		}
	}
	if err := fleet.CheckOutputRoot(j.outRoot()); err != nil {
		slog.Warn("ignoring a render journal that strata did not write", "journal", path, "err", err)
		return journal{}, false
	}
	for _, e := range j.Entries {
		if err := e.check(j.outRoot()); err != nil {
			slog.Warn("ignoring a render journal that strata did not write", "journal", path, "err", err)
			return journal{}, false
		}
	}
	return j, true
}
