package treestamp

import (
	"io/fs"
	"syscall"
)

// ID is the file's inode number and change time: they tell a file from
// one put in its place (even of the same size and modification time, on
// a reused inode), and a directory wherever it was moved (the inode).
func ID(info fs.FileInfo) (ino uint64, ctime int64) {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return st.Ino, st.Ctim.Nano()
	}
	return 0, 0
}
