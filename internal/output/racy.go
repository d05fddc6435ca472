package output

import (
	"errors"
	"io/fs"
	"os"

	"github.com/strata-fleet/strata/internal/treestamp"
)

// A stamp vouches for a file only if any later change would move it; one
// of the file system's clock tick when the run records the state is racy
// (treestamp's rule): its target is left out of the state, so that the
// next run renders it again and compares what it finds, as it would a
// target the state never saw. That run's own clock is then past the stamp.

// readClock reads the clock of the repository's file system, after every
// change the run made: the change time (or, where the system records
// none, the modification time) of a directory it changes. The directory
// is made and looked at, then changed (its .gitignore made in it, so that
// git ignores what a run stopped here leaves): on a system
// that gives a fine-grained time to a change of a file looked at since
// its last one (Linux's multigrain timestamps), as it does to a change of
// a file strata stamped, the clock reads that time rather than the
// current tick, and the run's last stamps are not racy. The staging
// area's name is used: it is gone once a run is over, and recoverStage
// removes what a run interrupted here leaves.
func readClock(root *os.Root, ops fileOps) (int64, error) {
	if err := ops.Mkdir(root, stagingDir); err != nil {
		return 0, err
	}
	var info fs.FileInfo
	_, err := root.Lstat(stagingDir)
	if err == nil {
		err = writeIgnore(root, ops)
	}
	if err == nil {
		info, err = root.Lstat(stagingDir)
	}
	if err = errors.Join(err, ops.RemoveAll(root, stagingDir)); err != nil {
		return 0, err
	}
	return treestamp.Of("", info).Changed(), nil
}
