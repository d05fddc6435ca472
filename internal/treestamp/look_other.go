//go:build !linux

package treestamp

import "io/fs"

// Dir is Linux's check of stamps without listing (look_linux.go);
// elsewhere callers list their trees.
type Dir struct{}

// Look reports false: there is no such check here.
func Look(any, func(Dir) bool) bool { return false }

// Has is never called (Look calls nothing).
func (Dir) Has(string, fs.FileMode, Stamp) bool { return false }

// Lacks is never called (Look calls nothing).
func (Dir) Lacks(string) bool { return false }
