//go:build unix && !linux

package output

import (
	"io/fs"
	"syscall"
)

// fileID is the file's inode number (see fileid_linux.go); the change
// time is left out here.
func fileID(info fs.FileInfo) (ino uint64, ctime int64) {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino), 0
	}
	return 0, 0
}
