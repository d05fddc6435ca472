//go:build unix && !linux

package treestamp

import (
	"io/fs"
	"syscall"
)

// ID is the file's inode number (see id_linux.go); the change time is
// left out here.
func ID(info fs.FileInfo) (ino uint64, ctime int64) {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino), 0
	}
	return 0, 0
}
