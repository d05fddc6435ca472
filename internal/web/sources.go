package web

import (
	"errors"
	"io/fs"
	"slices"
	"time"

	"github.com/strata-fleet/strata/internal/render"
)

// sourceDirs are the directories the fleet is made of; a change under them
// reloads it.
var sourceDirs = []string{"config", render.ChartDir}

// sources is what one look at the repository saw of sourceDirs: every
// directory and file with its stamp, each directory before what it holds.
type sources struct {
	entries []source
	// complete is false when a directory could not be listed: such a scan
	// is redone at every look rather than trusted.
	complete bool
	// racy is true when a stamp is of the clock tick the scan started in:
	// a change later in that tick could keep it, so the next look loads
	// the fleet again whatever it sees.
	racy bool
}

// source is one directory or file and its stamp.
type source struct {
	path string
	mode fs.FileMode
	size int64
	// mtime and ctime are the modification and change times
	// (nanoseconds); ino the inode number. ctime and ino are 0 where the
	// system has none.
	mtime, ctime int64
	ino          uint64
	err          string // why path could not be read
	absent       bool   // a directory of sourceDirs that does not exist
}

// scanSources lists sourceDirs and stamps what they hold.
func scanSources(fsys fs.FS) sources {
	src := sources{complete: true}
	start := time.Now().UnixNano()
	for _, dir := range sourceDirs {
		err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
			if p == dir && errors.Is(err, fs.ErrNotExist) {
				src.entries = append(src.entries, source{path: p, absent: true})
				return nil
			}
			if err != nil {
				src.entries = append(src.entries, source{path: p, err: err.Error()})
				src.complete = false
				return nil
			}
			info, err := d.Info()
			if err != nil {
				src.entries = append(src.entries, source{path: p, err: err.Error()})
				src.complete = false
				return nil
			}
			ino, ctime := fileID(info)
			src.entries = append(src.entries, source{path: p, mode: info.Mode(), size: info.Size(),
				mtime: info.ModTime().UnixNano(), ctime: ctime, ino: ino})
			return nil
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			src.entries = append(src.entries, source{path: dir, err: err.Error()})
			src.complete = false
		}
	}
	end := time.Now().UnixNano()
	src.racy = slices.ContainsFunc(src.entries, func(e source) bool { return e.racy(start, end) })
	return src
}

// racy reports whether a change to e after it was seen, during a scan
// from start to end, could keep its stamp: its change time (or
// modification time, where the system records none) is within a tick of
// the scan. File systems stamp times with the kernel's coarse clock, a
// tick (1-10ms) behind, and some only to the second. A time further in
// the future (a modification time set so) is not racy: a change would
// set it to now.
func (e source) racy(start, end int64) bool {
	changed := e.ctime
	if changed == 0 {
		changed = e.mtime
	}
	tick := int64(20 * time.Millisecond)
	if changed%int64(time.Second) == 0 {
		tick = int64(2 * time.Second) // a file system that keeps seconds
	}
	return changed > start-tick && changed < end+tick
}

// same reports whether two scans saw the same tree.
func (s sources) same(o sources) bool { return slices.Equal(s.entries, o.entries) }

// current reports, without listing a directory, whether the repository
// still holds what s saw: each directory and file has the stamp it had
// (stampsCurrent; false where the system offers no such check, and for an
// incomplete scan). Why no listing is needed: a directory's change time
// moves whenever an entry is added to it, removed from it or renamed in or
// out of it, and nothing can set it back; so while a directory's inode and
// change time are those seen, it holds the same names for the same inodes.
// A file edited in place changes its own modification and change times,
// which are checked too.
func (s sources) current(fsys fs.FS) bool {
	return s.complete && !s.racy && len(s.entries) > 0 && stampsCurrent(fsys, s.entries)
}
