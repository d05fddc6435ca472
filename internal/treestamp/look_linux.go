package treestamp

import (
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"
)

// Dir is an open directory under which stamps are checked, one fstatat
// each, without listing it or walking a path in Go.
type Dir struct{ fd int }

// Look calls fn with the directory f (an *os.File, or a file of an
// os.Root's or os.DirFS's FS) and reports what fn reports; false where f
// has no descriptor or the system offers no such check.
func Look(f any, fn func(Dir) bool) bool {
	sc, ok := f.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	ok = false
	if err := rc.Control(func(fd uintptr) { ok = fn(Dir{int(fd)}) }); err != nil {
		return false
	}
	return ok
}

// Has reports whether name, relative to d (a link not followed), is of the
// type typ (fs.FileMode's type bits, 0 for a regular file) with the stamp
// want. Callers check a directory before what it holds, so that one
// replaced by a link is caught before anything is looked up through it.
func (d Dir) Has(name string, typ fs.FileMode, want Stamp) bool {
	var st unix.Stat_t
	return unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && fileType(st.Mode) == typ &&
		st.Size == want.Size && st.Mtim.Nano() == want.MTime && st.Ino == want.Ino && st.Ctim.Nano() == want.CTime
}

// Lacks reports whether name, relative to d, does not exist.
func (d Dir) Lacks(name string) bool {
	var st unix.Stat_t
	return unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == unix.ENOENT
}

// fileType is the type bits of st_mode as fs.FileMode's, as os.Lstat
// gives them.
func fileType(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	default:
		return fs.ModeIrregular
	}
}
