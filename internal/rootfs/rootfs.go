package rootfs

import (
	"container/list"
	"errors"
	"io/fs"
	"os"
	"path"
	"sync"
)

// maxOpen bounds the directories a Cache keeps open.
const maxOpen = 256

// errCached is a Cache's own failure: FS answers instead.
var errCached = errors.New("not cached")

// FS is the directory of an os.Root, read as os.Root's FS reads it, except
// that it refuses git's data (gitdata.go).
type FS struct {
	root    *os.Root
	fsys    fs.FS    // root.FS()
	gitDirs []string // git's data directories not named .git
}

// New returns root as an FS.
func New(root *os.Root) *FS { return &FS{root: root, fsys: root.FS(), gitDirs: gitDirs(root)} }

// Open is os.Root's.
func (f *FS) Open(name string) (fs.File, error) {
	if err := f.check("open", name, false); err != nil {
		return nil, err
	}
	return f.fsys.Open(name)
}

// ReadFile is os.Root's.
func (f *FS) ReadFile(name string) ([]byte, error) {
	if err := f.check("open", name, false); err != nil {
		return nil, err
	}
	return fs.ReadFile(f.fsys, name)
}

// ReadDir is os.Root's.
func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := f.check("open", name, false); err != nil {
		return nil, err
	}
	return fs.ReadDir(f.fsys, name)
}

// Stat is os.Root's.
func (f *FS) Stat(name string) (fs.FileInfo, error) {
	if err := f.check("stat", name, false); err != nil {
		return nil, err
	}
	return fs.Stat(f.fsys, name)
}

// Lstat is os.Root's.
func (f *FS) Lstat(name string) (fs.FileInfo, error) {
	if err := f.check("lstat", name, true); err != nil {
		return nil, err
	}
	return fs.Lstat(f.fsys, name)
}

// ReadLink is os.Root's.
func (f *FS) ReadLink(name string) (string, error) {
	if err := f.check("readlink", name, true); err != nil {
		return "", err
	}
	return fs.ReadLink(f.fsys, name)
}

// Cache returns a view of f that keeps the directories it reads open, for
// one pass of reading; the caller closes it.
func (f *FS) Cache() *Cache { return &Cache{FS: f, dirs: map[string]*dir{}} }

// Cache is an FS that reads files and lists directories through the
// directories, opened once. It is safe for concurrent use.
type Cache struct {
	*FS

	mu   sync.Mutex
	dirs map[string]*dir
	lru  list.List // of *dir, most recently used first
}

// dir is an open directory of the repository, in use by refs readers.
type dir struct {
	name    string
	real    string // name with its symbolic links resolved
	r       *os.Root
	refs    int
	elem    *list.Element
	evicted bool // no longer in dirs: closed when its last reader is done
}

// ReadFile reads name through its directory, opened once.
func (f *Cache) ReadFile(name string) ([]byte, error) {
	parent := path.Dir(name)
	if !fs.ValidPath(name) || parent == "." {
		return f.FS.ReadFile(name)
	}
	d, err := f.acquire(parent)
	if err != nil {
		return f.FS.ReadFile(name)
	}
	// A file that is a link, or of git's data, is FS's to answer.
	base := path.Base(name)
	info, err := d.r.Lstat(base)
	if err != nil || info.Mode()&fs.ModeSymlink != 0 || f.gitDir(d.real+"/"+base) != "" {
		f.release(d)
		return f.FS.ReadFile(name)
	}
	data, err := d.r.ReadFile(base)
	f.release(d)
	if err != nil {
		return f.FS.ReadFile(name)
	}
	return data, nil
}

// ReadDir lists the directory name, which it keeps open.
func (f *Cache) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) || name == "." {
		return f.FS.ReadDir(name)
	}
	d, err := f.acquire(name)
	if err != nil {
		return f.FS.ReadDir(name)
	}
	entries, err := fs.ReadDir(d.r.FS(), ".")
	f.release(d)
	if err != nil {
		return f.FS.ReadDir(name)
	}
	return entries, nil
}

// Close closes the directories f keeps open, not the repository.
func (f *Cache) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, d := range f.dirs {
		f.evict(d)
	}
	return nil
}

// acquire returns the directory name open, opening it (and its parents)
// through the repository's root when it is not; release gives it back.
func (f *Cache) acquire(name string) (*dir, error) {
	f.mu.Lock()
	if d := f.dirs[name]; d != nil {
		d.refs++
		f.lru.MoveToFront(d.elem)
		f.mu.Unlock()
		return d, nil
	}
	f.mu.Unlock()
	// Only a directory FS would read is kept: where name (or a link on
	// the way) is of git's data, the caller asks FS, which refuses it.
	var r *os.Root
	var resolved string
	if parent := path.Dir(name); parent == "." {
		var err error
		if resolved, err = f.FS.resolve(name, false); err != nil || resolved == "" || f.gitDir(resolved) != "" {
			return nil, errCached
		}
		if r, err = f.FS.root.OpenRoot(name); err != nil {
			return nil, err
		}
	} else {
		p, err := f.acquire(parent)
		if err != nil {
			return nil, err
		}
		base := path.Base(name)
		info, err := p.r.Lstat(base)
		switch {
		case err != nil:
		case info.Mode()&fs.ModeSymlink != 0:
			resolved, err = f.FS.resolve(name, false)
		default:
			resolved = path.Join(p.real, base)
		}
		if err == nil && (resolved == "" || f.gitDir(resolved) != "") {
			err = errCached
		}
		if err == nil {
			r, err = p.r.OpenRoot(base)
		}
		f.release(p)
		if err != nil {
			return nil, err
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if d := f.dirs[name]; d != nil { // opened meanwhile
		r.Close()
		d.refs++
		f.lru.MoveToFront(d.elem)
		return d, nil
	}
	d := &dir{name: name, real: resolved, r: r, refs: 1}
	d.elem = f.lru.PushFront(d)
	f.dirs[name] = d
	for e := f.lru.Back(); f.lru.Len() > maxOpen && e != nil; {
		prev := e.Prev()
		f.evict(e.Value.(*dir))
		e = prev
	}
	return d, nil
}

// release ends a use of d.
func (f *Cache) release(d *dir) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d.refs--
	if d.evicted && d.refs == 0 {
		d.r.Close()
	}
}

// evict forgets d, closing it unless it is in use (release closes it then).
// f.mu is held.
func (f *Cache) evict(d *dir) {
	delete(f.dirs, d.name)
	f.lru.Remove(d.elem)
	d.evicted = true
	if d.refs == 0 {
		d.r.Close()
	}
}
