//go:build !linux

package output

// stampsCurrent is Linux's shortcut (stamps_linux.go); elsewhere the
// target's directories are listed.
func stampsCurrent(*tree, string, TargetState) bool { return false }
