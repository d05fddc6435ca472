package output

import (
	"path"

	"golang.org/x/sys/unix"
)

// stampsCurrent reports, without listing any directory, whether the target
// directory dir (which the caller checked is a directory, reached through
// directories) holds exactly what ts recorded: each recorded directory,
// parents first, is a directory with its recorded stamp, then each
// recorded file is a regular file with its own, looked up by name
// relative to the target's directory (one fstatat each, no path walk).
//
// Why no listing is needed: a directory's change time moves whenever an
// entry is added to it, removed from it or renamed in or out of it
// (POSIX), and nothing can set it back; so while a directory's inode and
// change time are those recorded, its names are those it had then, each
// naming the same inode, and a file added, removed or replaced anywhere
// in the target changes the stamp of the directory that holds it. A file
// edited in place changes only its own stamp, which is checked too. A
// change within the clock tick of the recording could keep a stamp: the
// state holds no such stamp (racy.go).
func stampsCurrent(t *tree, dir string, ts TargetState) bool {
	if len(ts.Dirs) == 0 || ts.Dirs[0].Name != "." {
		return false // a state without directories: list them
	}
	parent, err := t.sub(path.Dir(dir))
	if err != nil {
		return false
	}
	f, err := parent.Open(path.Base(dir))
	if err != nil {
		return false
	}
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	ok := false
	if err := rc.Control(func(fd uintptr) { ok = stampsMatch(int(fd), ts) }); err != nil {
		return false
	}
	return ok
}

// stampsMatch compares the directory fd and what is under it with ts.
func stampsMatch(fd int, ts TargetState) bool {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || !sameStamp(&st, unix.S_IFDIR, ts.Dirs[0]) {
		return false
	}
	for _, d := range ts.Dirs[1:] {
		if unix.Fstatat(fd, d.Name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || !sameStamp(&st, unix.S_IFDIR, d) {
			return false
		}
	}
	for _, f := range ts.Files {
		if unix.Fstatat(fd, f.Name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || !sameStamp(&st, unix.S_IFREG, f) {
			return false
		}
	}
	return true
}

// sameStamp reports whether st is of the type typ and has the stamp want
// (as stamp makes it from a FileInfo).
func sameStamp(st *unix.Stat_t, typ uint32, want Stamp) bool {
	return st.Mode&unix.S_IFMT == typ && st.Size == want.Size && st.Mtim.Nano() == want.MTime &&
		st.Ino == want.Ino && st.Ctim.Nano() == want.CTime
}
