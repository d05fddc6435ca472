package treestamp

import "io/fs"

// Stamp identifies the version of a file or directory on disk, as Git's
// index does: a file replaced (by a link, or by another file of the same
// size and time) has another inode or change time.
type Stamp struct {
	Name  string // as the caller names it: a slash path
	Size  int64
	MTime int64 // nanoseconds
	Ino   uint64
	CTime int64 // nanoseconds; 0 where the system records none (ID)
}

// Of returns the stamp of info, named name.
func Of(name string, info fs.FileInfo) Stamp {
	ino, ctime := ID(info)
	return Stamp{Name: name, Size: info.Size(), MTime: info.ModTime().UnixNano(), Ino: ino, CTime: ctime}
}

// Changed is the time by which the stamp's file last changed: its change
// time, or its modification time where the system records none.
func (s Stamp) Changed() int64 {
	if s.CTime != 0 {
		return s.CTime
	}
	return s.MTime
}
