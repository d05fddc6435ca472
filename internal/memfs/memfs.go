package memfs

import (
	"io/fs"
	"path"
	"slices"
	"strings"
	"testing/fstest"
	"time"
)

// FS is a fstest.MapFS whose ReadDir costs the size of the directory.
type FS struct {
	fstest.MapFS
	dirs map[string][]fs.DirEntry // by directory, sorted by name
}

// Index returns m with its directories indexed. m must not change
// afterwards.
func Index(m fstest.MapFS) *FS {
	f := &FS{MapFS: m, dirs: map[string][]fs.DirEntry{".": nil}}
	seen := map[string]bool{}
	for name, file := range m {
		isDir := file.Mode.IsDir()
		for p := name; p != "." && !seen[p]; p = path.Dir(p) {
			seen[p] = true
			parent := path.Dir(p)
			f.dirs[parent] = append(f.dirs[parent], &entry{fsys: f, path: p, dir: isDir || p != name, mode: file.Mode})
			if isDir || p != name {
				if _, ok := f.dirs[p]; !ok {
					f.dirs[p] = nil
				}
			}
		}
	}
	for _, es := range f.dirs {
		slices.SortFunc(es, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	}
	return f
}

// ReadDir lists the directory name.
func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	es, ok := f.dirs[name]
	if !ok || !fs.ValidPath(name) {
		return f.MapFS.ReadDir(name) // the error MapFS gives
	}
	return slices.Clone(es), nil
}

// entry is a directory entry of an FS.
type entry struct {
	fsys *FS
	path string
	dir  bool
	mode fs.FileMode
}

func (e *entry) Name() string { return path.Base(e.path) }
func (e *entry) IsDir() bool  { return e.dir }
func (e *entry) Type() fs.FileMode {
	if e.dir {
		return fs.ModeDir
	}
	return e.mode.Type()
}
func (e *entry) Info() (fs.FileInfo, error) {
	if file, ok := e.fsys.MapFS[e.path]; ok {
		return fs.Stat(fstest.MapFS{e.path: file}, e.path)
	}
	return dirInfo{name: e.Name()}, nil
}

// dirInfo describes a directory that the map holds no entry for.
type dirInfo struct{ name string }

func (d dirInfo) Name() string       { return d.name }
func (d dirInfo) Size() int64        { return 0 }
func (d dirInfo) Mode() fs.FileMode  { return fs.ModeDir | 0o555 }
func (d dirInfo) ModTime() time.Time { return time.Time{} }
func (d dirInfo) IsDir() bool        { return true }
func (d dirInfo) Sys() any           { return nil }
