package output

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"time"
)

// A stamp vouches for a file only if any later change would move it. A
// change moves the change time to the file system's clock, which on many
// systems ticks coarsely (a few milliseconds on Linux before 6.13, a
// second or two on some file systems): a file edited in place, keeping its
// size and modification time, in the same tick as strata wrote or stamped
// it keeps its stamp. Such a stamp is racy, as Git's index calls its own:
// when a run records the state, it reads the file system's clock, and a
// target with a stamp of that tick or later is left out of the state, so
// that the next run renders it again and compares what it finds, as it
// would a target the state never saw. That run's own clock is then past
// the stamp.

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
	return changeTime(stamp(entry{Info: info})), nil
}

// changeTime is the time by which a stamp's file last changed: its change
// time, or its modification time where the system records none.
func changeTime(s Stamp) int64 {
	if s.CTime != 0 {
		return s.CTime
	}
	return s.MTime
}

// noClock is the clock when it could not be read: every stamp is racy.
const noClock = math.MinInt64

// coarsest is the coarsest tick of a file system's clock (FAT keeps even
// seconds). A time further past the clock than that was set (a
// modification time), not stamped by a change, and a change would move it.
const coarsest = int64(2 * time.Second)

// racy reports whether a change to one of ts's files or directories after
// the clock read clock could keep its stamp.
func (ts TargetState) racy(clock int64) bool {
	for _, stamps := range [][]Stamp{ts.Dirs, ts.Files} {
		for _, s := range stamps {
			if t := changeTime(s); t >= clock && (clock == noClock || t-clock < coarsest) {
				return true
			}
		}
	}
	return false
}
