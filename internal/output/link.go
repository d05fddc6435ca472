package output

import (
	"os"
	"path"
)

// linker hard-links the unchanged files of one target from its directory
// in rendered/ into its staged tree. Where the system links relative to
// open directories (linkAtSupported), each directory of both trees is
// opened once and each file linked by name (fileOps.LinkAt): os.Root.Link
// walks both paths, component by component, for every file, which was
// most of the cost of staging an unchanged file in a large fleet.
type linker struct {
	s           *stage
	dir, staged string   // slash paths from the repository root
	from, to    *os.Root // dir and staged, opened on first use
	dirs        map[string][2]*os.File
}

func newLinker(s *stage, dir, staged string) *linker {
	return &linker{s: s, dir: dir, staged: staged, dirs: map[string][2]*os.File{}}
}

// link links the file rel (a slash path under the target's directory)
// into the staged tree, whose directory for it exists.
func (l *linker) link(rel string) error {
	if !linkAtSupported {
		return l.s.ops.Link(l.s.root, l.dir+"/"+rel, l.staged+"/"+rel)
	}
	d, name := path.Dir(rel), path.Base(rel)
	pair, ok := l.dirs[d]
	if !ok {
		var err error
		if pair, err = l.open(d); err != nil {
			return err
		}
		l.dirs[d] = pair
	}
	return l.s.ops.LinkAt(pair[0], name, pair[1], name)
}

// open opens the directory d (relative to the target's directory) of both
// trees.
func (l *linker) open(d string) ([2]*os.File, error) {
	var pair [2]*os.File
	var err error
	if l.from == nil {
		if l.from, err = l.s.root.OpenRoot(l.dir); err != nil {
			return pair, err
		}
	}
	if l.to == nil {
		if l.to, err = l.s.root.OpenRoot(l.staged); err != nil {
			return pair, err
		}
	}
	if pair[0], err = l.from.Open(d); err != nil {
		return pair, err
	}
	if pair[1], err = l.to.Open(d); err != nil {
		pair[0].Close()
		return pair, err
	}
	return pair, nil
}

// close closes what the linker opened.
func (l *linker) close() {
	for _, pair := range l.dirs {
		pair[0].Close()
		pair[1].Close()
	}
	for _, r := range []*os.Root{l.from, l.to} {
		if r != nil {
			r.Close()
		}
	}
}
