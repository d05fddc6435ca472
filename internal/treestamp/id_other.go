//go:build !unix

package treestamp

import "io/fs"

// ID is zero where the system has no inode numbers: stamps then rely on
// size and time.
func ID(fs.FileInfo) (ino uint64, ctime int64) { return 0, 0 }
