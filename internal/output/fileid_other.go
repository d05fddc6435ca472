//go:build !unix

package output

import "io/fs"

// fileID is zero where the system has no inode numbers: the render state
// then relies on size and time, and an interrupted switch is not resumed
// (the next run discards it and renders the targets again).
func fileID(fs.FileInfo) (ino uint64, ctime int64) { return 0, 0 }
