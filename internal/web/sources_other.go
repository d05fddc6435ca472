//go:build !linux

package web

import "io/fs"

// fileID is left out where the check below is: size and modification
// time tell a change.
func fileID(fs.FileInfo) (ino uint64, ctime int64) { return 0, 0 }

// stampsCurrent is Linux's shortcut (sources_linux.go); elsewhere the
// directories are listed at every look.
func stampsCurrent(fs.FS, []source) bool { return false }
