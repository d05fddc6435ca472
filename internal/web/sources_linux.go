package web

import (
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"
)

// fileID is a file's inode number and change time.
func fileID(info fs.FileInfo) (ino uint64, ctime int64) {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return st.Ino, st.Ctim.Nano()
	}
	return 0, 0
}

// stampsCurrent stats every entry, relative to the repository's directory
// (one fstatat each, the entry itself not followed if it is a symbolic
// link), and reports whether each has its stamp. Parents come first, so a
// directory replaced by a link is caught before anything is looked up
// through it. It needs fsys to open "." as an *os.File (os.DirFS, an
// os.Root's FS), and reports false otherwise.
func stampsCurrent(fsys fs.FS, entries []source) bool {
	f, err := fsys.Open(".")
	if err != nil {
		return false
	}
	defer f.Close()
	sc, ok := f.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	same := false
	if err := rc.Control(func(fd uintptr) { same = stampsMatch(int(fd), entries) }); err != nil {
		return false
	}
	return same
}

func stampsMatch(fd int, entries []source) bool {
	var st unix.Stat_t
	for _, e := range entries {
		err := unix.Fstatat(fd, e.path, &st, unix.AT_SYMLINK_NOFOLLOW)
		if e.absent {
			if err != unix.ENOENT {
				return false
			}
			continue
		}
		if err != nil {
			return false
		}
		if st.Ino != e.ino || st.Ctim.Nano() != e.ctime || st.Mtim.Nano() != e.mtime || st.Size != e.size ||
			fileMode(st.Mode) != e.mode.Type() {
			return false
		}
	}
	return true
}

// fileMode is the type bits of st_mode as an fs.FileMode.
func fileMode(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFREG:
		return 0
	default:
		return fs.ModeIrregular
	}
}
