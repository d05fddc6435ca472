// Package memfs is an in-memory file system for a repository read from Git
// (diff's base revision): a testing/fstest.MapFS with its directories
// indexed.
//
// fstest.MapFS synthesizes a directory's entries by scanning every file of
// the map at each ReadDir, so loading a fleet of thousands of level
// directories from one costs the square of its size; Index lists each
// directory once.
package memfs
