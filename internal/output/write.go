package output

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/strata-fleet/strata/internal/render"
)

// writer compares each rendered target with its directory in rendered/
// and, unless it only checks, stages the complete new tree of each target
// that changed. Targets come from the render workers and are handled by
// writers of their own, so that the disk works while targets render, and
// each target's content is dropped once handled: memory holds at most
// writerQueue targets.
type writer struct {
	root  *os.Root
	tree  *tree
	stage *stage // nil when only checking
	// outRoot is the output root (the fleet's Layout.Root()).
	outRoot string
	// first: the output root does not exist; the whole tree is staged as
	// one, under firstDir.
	first    bool
	firstDir string

	queue chan *render.Output
	wg    sync.WaitGroup

	mu   sync.Mutex
	plan Plan
	// changes are the plan's changes until finish, packed: a Change per
	// written file, with its path, was a fifth of a 10,000-target render's
	// live heap.
	changes []changeSet
	// names are the paths under target directories that the plan and the
	// stamps use, each once (nameList), with its index there.
	names    map[string]uint64
	nameList []string
	// stamps are the staged targets' stamps as staging learnt them
	// (stagedStamps), by target directory, packed (packedStamps): a large
	// render keeps them until its switch.
	stamps map[string]packedStamps
	err    error // the first error of a writer
}

// changeSet is the changes of the files of a target's directory dir (each
// with its name in the writer's nameList and its op, packed by pack), or
// when dir is "" changes anywhere (whole).
type changeSet struct {
	dir    string
	packed []uint32
	whole  []Change
}

// ops are the ops that pack numbers.
var ops = [...]Op{Create, Update, Delete}

// pack packs the op of a change and the index of its name, or returns
// false for a name index too large.
func pack(op Op, name uint64) (uint32, bool) {
	i := slices.Index(ops[:], op)
	return uint32(name)<<2 | uint32(i), i >= 0 && name < 1<<30
}

// unpack returns the op and the name index that pack packed.
func unpack(c uint32) (Op, uint32) { return ops[c&3], c >> 2 }

// writers is how many goroutines compare and stage targets; writerQueue
// bounds how many rendered targets wait for them.
const (
	writers     = 4
	writerQueue = 64
)

func newWriter(t *tree, s *stage, outRoot string, first bool) *writer {
	w := &writer{root: t.root, tree: t, stage: s, outRoot: outRoot, first: first, queue: make(chan *render.Output, writerQueue)}
	if first && s != nil {
		w.firstDir = s.add(outRoot)
		if err := s.mkdirAll(w.firstDir); err != nil {
			w.fail(fmt.Errorf("staging %s: %w", outRoot, err))
		}
	}
	for range writers {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			for o := range w.queue {
				if err := w.target(o); err != nil {
					w.fail(err)
				}
			}
		}()
	}
	return w
}

// sink hands a rendered target to the writers (a render.RenderStream
// sink); it returns the first error so far, which fails the render.
func (w *writer) sink(_ int, o *render.Output) error {
	w.queue <- o
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// finish waits for the writers and returns the plan, sorted, or the first
// error.
func (w *writer) finish() (*Plan, error) {
	close(w.queue)
	w.wg.Wait()
	if w.err != nil {
		return nil, w.err
	}
	p := &w.plan
	n := 0
	for _, cs := range w.changes {
		n += len(cs.packed) + len(cs.whole)
	}
	p.Changes = make([]Change, 0, n)
	for _, cs := range w.changes {
		for _, c := range cs.packed {
			op, name := unpack(c)
			p.Changes = append(p.Changes, Change{Op: op, Path: cs.dir + "/" + w.nameList[name]})
		}
		p.Changes = append(p.Changes, cs.whole...)
	}
	w.changes = nil
	sort.SliceStable(p.Changes, func(i, j int) bool {
		a, b := p.Changes[i], p.Changes[j]
		if (a.Op == Delete) != (b.Op == Delete) {
			return b.Op == Delete
		}
		return a.Path < b.Path
	})
	sort.Slice(p.Dirs, func(i, j int) bool {
		if ci, cj := strings.Count(p.Dirs[i], "/"), strings.Count(p.Dirs[j], "/"); ci != cj {
			return ci > cj
		}
		return p.Dirs[i] < p.Dirs[j]
	})
	return p, nil
}

func (w *writer) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = err
	}
}

// record adds changes, of files under the directory dir ("": anywhere),
// to the plan.
func (w *writer) record(dir string, all []Change, unchanged int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.plan.Unchanged += unchanged
	if len(all) == 0 {
		return
	}
	cs := changeSet{dir: dir}
	if dir != "" {
		cs.packed = make([]uint32, 0, len(all))
	}
	prefix := dir + "/"
	for _, c := range all {
		rel, ok := strings.CutPrefix(c.Path, prefix)
		if ok && dir != "" {
			if p, ok := pack(c.Op, w.nameIndex(rel)); ok {
				cs.packed = append(cs.packed, p)
				continue
			}
		}
		cs.whole = append(cs.whole, c)
	}
	w.changes = append(w.changes, cs)
}

// target compares a rendered target with its directory and stages it when
// it changed.
func (w *writer) target(o *render.Output) error {
	dir := o.Target.Dir()
	defer func() {
		for i := range o.Files {
			o.Files[i].Data = nil
		}
	}()
	var (
		changes []Change
		same    map[string]bool
		staged  string // where the target is staged, if it is
	)
	if w.first {
		changes = make([]Change, len(o.Files))
		for i, f := range o.Files {
			changes[i] = Change{Op: Create, Path: f.Path}
		}
		staged = w.firstDir + "/" + strings.TrimPrefix(dir, w.outRoot+"/")
	} else {
		var err error
		if changes, same, err = w.compare(dir, o.Files); err != nil {
			return err
		}
		if len(changes) > 0 && w.stage != nil {
			staged = w.stage.add(dir)
		}
	}
	if staged != "" && w.stage != nil {
		stamps, err := w.stage.writeTarget(staged, dir, o.Files, same)
		if err != nil {
			return err
		}
		if atSupported {
			w.keepStamps(dir, stamps)
		}
	}
	w.record(dir, changes, len(same))
	if len(o.Beside) > 0 {
		return w.beside(o.Beside)
	}
	return nil
}

// packedStamps is a stagedStamps with its files' and directories' stamps
// packed with the state's encoding (appendStamps), their names the
// writer's.
type packedStamps struct {
	packed []byte // files, then directories
	linked []string
}

// keepStamps keeps the stamps that staging the target directory dir learnt.
func (w *writer) keepStamps(dir string, s stagedStamps) {
	w.mu.Lock()
	defer w.mu.Unlock()
	p := packedStamps{linked: s.linked}
	for _, stamps := range [][]Stamp{s.files, s.dirs} {
		for _, st := range stamps {
			w.nameIndex(st.Name)
		}
	}
	p.packed = appendStamps(appendStamps(nil, s.files, w.names), s.dirs, w.names)
	for i := range p.linked {
		p.linked[i] = w.name(p.linked[i])
	}
	if w.stamps == nil {
		w.stamps = map[string]packedStamps{}
	}
	w.stamps[dir] = p
}

// staged returns the stamps that staging the target directory dir learnt,
// if it staged it. Not while writers run.
func (w *writer) staged(dir string) (stagedStamps, bool) {
	p, ok := w.stamps[dir]
	if !ok {
		return stagedStamps{}, false
	}
	d := stateDecoder{data: p.packed}
	s := stagedStamps{files: d.stamps(w.nameList), dirs: d.stamps(w.nameList), linked: p.linked}
	return s, d.err == nil
}

// name returns rel, a path under a target's directory, as a string of its
// own (not part of the path it was cut from) that every target with that
// path shares. The caller holds w.mu.
func (w *writer) name(rel string) string { return w.nameList[w.nameIndex(rel)] }

// nameIndex returns the index of rel in nameList, adding it. The caller
// holds w.mu.
func (w *writer) nameIndex(rel string) uint64 {
	if w.names == nil {
		w.names = map[string]uint64{}
	}
	i, ok := w.names[rel]
	if !ok {
		i = uint64(len(w.nameList))
		w.nameList = append(w.nameList, strings.Clone(rel))
		w.names[w.nameList[i]] = i
	}
	return i
}

// compare returns the changes that bring the directory dir to files, and
// the files (relative to dir) that are already as rendered.
func (w *writer) compare(dir string, files []render.File) ([]Change, map[string]bool, error) {
	exists, err := w.tree.dir(dir)
	if err != nil {
		return nil, nil, err
	}
	var changes []Change
	same := map[string]bool{}
	if !exists {
		for _, f := range files {
			changes = append(changes, Change{Op: Create, Path: f.Path})
		}
		return changes, same, nil
	}
	old, err := w.tree.files(dir)
	if err != nil {
		return nil, nil, err
	}
	sizes := make(map[string]int64, len(old))
	for _, e := range old {
		sizes[e.Name] = e.Info.Size()
	}
	sub, err := w.tree.open(dir)
	if err != nil {
		return nil, nil, err
	}
	defer sub.Close()
	r := &reader{root: sub, dirs: map[string]*os.File{}}
	defer r.close()
	for _, f := range files {
		rel := strings.TrimPrefix(f.Path, dir+"/")
		size, found := sizes[rel]
		delete(sizes, rel)
		if !found {
			changes = append(changes, Change{Op: Create, Path: f.Path})
			continue
		}
		if size == int64(len(f.Data)) {
			have, err := r.read(rel, len(f.Data))
			if err != nil {
				return nil, nil, fmt.Errorf("reading %s: %w", f.Path, err)
			}
			if bytes.Equal(have, f.Data) {
				same[rel] = true
				continue
			}
		}
		changes = append(changes, Change{Op: Update, Path: f.Path})
	}
	for name := range sizes {
		changes = append(changes, Change{Op: Delete, Path: dir + "/" + name})
	}
	return changes, same, nil
}

// reader reads the files of a target's directory in rendered/ (root) to
// compare them, relative to its directories opened once where the system
// can (atSupported), through root otherwise and for anything unusual (a
// link, an error): the same answers as root.ReadFile.
type reader struct {
	root *os.Root
	dirs map[string]*os.File // by path relative to root
	buf  []byte
}

// read returns the content of the file rel (a slash path under root), or
// its first size+1 bytes when it is longer.
func (r *reader) read(rel string, size int) ([]byte, error) {
	if atSupported {
		d, name := path.Dir(rel), path.Base(rel)
		if dir, err := opened(r.root, r.dirs, d); err == nil {
			if cap(r.buf) < size+1 {
				r.buf = make([]byte, size+1)
			}
			if data, err := readFileAt(dir, name, r.buf[:size+1]); err == nil {
				return data, nil
			}
		}
	}
	return r.root.ReadFile(rel)
}

func (r *reader) close() {
	for _, f := range r.dirs {
		f.Close()
	}
}

// stale finds what the output root holds outside the directories of targets
// (want): files and directories no target renders any more. They are
// recorded in the plan and, when writing, as removals of the switch.
func (w *writer) stale(want map[string]bool) error {
	needed := map[string]bool{}
	for d := range want {
		for ; d != "." && d != w.outRoot; d = path.Dir(d) {
			needed[d] = true
		}
	}
	var walk func(dir string) error
	walk = func(dir string) error {
		des, err := readDir(w.root, dir)
		if err != nil {
			return err
		}
		for _, de := range des {
			p := dir + "/" + de.Name()
			switch {
			case want[p]:
				continue
			case needed[p]:
				if _, err := w.tree.dir(p); err != nil {
					return err
				}
				if err := walk(p); err != nil {
					return err
				}
				continue
			}
			if err := w.staleEntry(p); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(w.outRoot)
}

// staleEntry records the removal of the stale file or directory p.
func (w *writer) staleEntry(p string) error {
	isDir, err := w.tree.dir(p)
	if err != nil && !isDir {
		// A stale regular file: tree.dir reports it as no directory.
		info, lerr := w.root.Lstat(p)
		if lerr != nil || !info.Mode().IsRegular() {
			return err
		}
		w.record("", []Change{{Op: Delete, Path: p}}, 0)
		if w.stage != nil {
			w.stage.remove(p)
		}
		return nil
	}
	files, err := w.tree.files(p)
	if err != nil {
		return err
	}
	changes := make([]Change, len(files))
	for i, f := range files {
		changes[i] = Change{Op: Delete, Path: p + "/" + f.Name}
	}
	w.record(p, changes, 0)
	w.mu.Lock()
	w.plan.Dirs = append(w.plan.Dirs, staleDirs(p, files)...)
	w.mu.Unlock()
	if w.stage != nil {
		w.stage.remove(p)
	}
	return nil
}

// staleDirs lists the directory p and those holding its files.
func staleDirs(p string, files []entry) []string {
	seen := map[string]bool{p: true}
	out := []string{p}
	for _, f := range files {
		for _, d := range parents(f.Name) {
			if d := p + "/" + d; !seen[d] {
				seen[d] = true
				out = append(out, d)
			}
		}
	}
	return out
}
