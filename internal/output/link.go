package output

import (
	"os"
	"path"
)

// linker puts the files of one target into its staged tree: it hard-links
// the unchanged ones from the target's directory in rendered/ and writes
// the others. Where the system links and creates files relative to open
// directories (atSupported), each directory of both trees is opened once
// and each file linked or written by name (fileOps.LinkAt, WriteFileAt):
// os.Root walks a path, component by component, for every file, which was
// most of the cost of staging a file in a large fleet.
type linker struct {
	s           *stage
	dir, staged string   // slash paths from the repository root
	sub         *os.Root // staged, open
	from        *os.Root // dir, opened on first use
	// fromDirs and toDirs are the directories of both trees opened so far,
	// by path relative to the target's directory.
	fromDirs, toDirs map[string]*os.File
	// stamps is what staging learnt of the target's stamps (see
	// stagedStamps), where atSupported.
	stamps stagedStamps
}

func newLinker(s *stage, dir, staged string, sub *os.Root) *linker {
	return &linker{s: s, dir: dir, staged: staged, sub: sub, fromDirs: map[string]*os.File{}, toDirs: map[string]*os.File{}}
}

// link links the file rel (a slash path under the target's directory)
// into the staged tree, whose directory for it exists.
func (l *linker) link(rel string) error {
	if !atSupported {
		return l.s.ops.Link(l.s.root, l.dir+"/"+rel, l.staged+"/"+rel)
	}
	d, name := path.Dir(rel), path.Base(rel)
	if l.from == nil {
		var err error
		if l.from, err = l.s.root.OpenRoot(l.dir); err != nil {
			return err
		}
	}
	from, err := opened(l.from, l.fromDirs, d)
	if err != nil {
		return err
	}
	to, err := opened(l.sub, l.toDirs, d)
	if err != nil {
		return err
	}
	if err := l.s.ops.LinkAt(from, name, to, name); err != nil {
		return err
	}
	l.stamps.linked = append(l.stamps.linked, rel)
	return nil
}

// write writes the new file rel (a slash path under the target's
// directory) with data into the staged tree, whose directory for it
// exists.
func (l *linker) write(rel string, data []byte) error {
	if !atSupported {
		return l.s.ops.WriteFile(l.sub, rel, data)
	}
	d, name := path.Dir(rel), path.Base(rel)
	to, err := opened(l.sub, l.toDirs, d)
	if err != nil {
		return err
	}
	st, err := l.s.ops.WriteFileAt(to, name, data)
	if err != nil {
		return err
	}
	st.Name = rel
	l.stamps.files = append(l.stamps.files, st)
	return nil
}

// opened returns the directory d of root, opening it on first use.
func opened(root *os.Root, dirs map[string]*os.File, d string) (*os.File, error) {
	if f, ok := dirs[d]; ok {
		return f, nil
	}
	f, err := root.Open(d)
	if err != nil {
		return nil, err
	}
	dirs[d] = f
	return f, nil
}

// close closes what the linker opened (not sub).
func (l *linker) close() {
	for _, dirs := range []map[string]*os.File{l.fromDirs, l.toDirs} {
		for _, f := range dirs {
			f.Close()
		}
	}
	if l.from != nil {
		l.from.Close()
	}
}
