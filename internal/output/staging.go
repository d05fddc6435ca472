package output

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/strata-fleet/strata/internal/atomicfile"
	"github.com/strata-fleet/strata/internal/render"
)

// staging is a first render's output being written beside the repository's
// (absent) rendered/ directory while targets render. commit moves it into
// place only when every target rendered; otherwise discard removes it, so
// rendered/ never holds part of a failed run.
//
// Files are written by writers of their own, so that the disk works while
// the render workers compute: a first render costs little more than the
// writes themselves.
type staging struct {
	root, dir string
	done      bool
	dirs      sync.Map // directories already created

	queue  chan *render.Output
	wg     sync.WaitGroup
	closed sync.Once
	mu     sync.Mutex
	err    error    // the first write error
	paths  []string // the files written
}

// stagingWriters is how many goroutines write files; stagingQueue bounds how
// many rendered targets wait for them (and so the memory they hold).
const (
	stagingWriters = 4
	stagingQueue   = 64
)

func newStaging(root string) (*staging, error) {
	dir, err := os.MkdirTemp(root, ".rendered-*")
	if err != nil {
		return nil, fmt.Errorf("creating a staging directory: %w", err)
	}
	// It becomes rendered/: as atomicfile creates directories.
	if err := os.Chmod(dir, atomicfile.DirMode); err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("creating a staging directory: %w", err)
	}
	s := &staging{root: root, dir: dir, queue: make(chan *render.Output, stagingQueue)}
	for range stagingWriters {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			for o := range s.queue {
				if err := s.writeFiles(o); err != nil {
					s.mu.Lock()
					if s.err == nil {
						s.err = err
					}
					s.mu.Unlock()
				}
			}
		}()
	}
	return s, nil
}

// write queues a target's files for the writers (a render.RenderStream
// sink). It returns the first write error so far, which fails the render.
func (s *staging) write(_ int, o *render.Output) error {
	s.queue <- o
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// finish waits for the writers and returns the first write error.
func (s *staging) finish() error {
	s.closed.Do(func() { close(s.queue) })
	s.wg.Wait()
	return s.err
}

// writeFiles writes a target's files into the staging directory, keeping
// only their paths.
func (s *staging) writeFiles(o *render.Output) error {
	for _, f := range o.Files {
		rel := strings.TrimPrefix(f.Path, render.OutputDir+"/")
		dst := filepath.Join(s.dir, filepath.FromSlash(rel))
		if d := filepath.Dir(dst); !s.made(d) {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
			s.dirs.Store(d, true)
		}
		if err := os.WriteFile(dst, f.Data, 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", f.Path, err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range o.Files {
		s.paths = append(s.paths, f.Path)
	}
	return nil
}

// commit moves the staging directory to rendered/ and returns the plan it
// carried out: every file created.
func (s *staging) commit() (*Plan, error) {
	if err := s.finish(); err != nil {
		return nil, err
	}
	dst := filepath.Join(s.root, render.OutputDir)
	if err := os.Rename(s.dir, dst); err != nil {
		return nil, fmt.Errorf("moving the rendered files into %s: %w", render.OutputDir, err)
	}
	s.done = true
	sort.Strings(s.paths)
	p := &Plan{Changes: make([]Change, len(s.paths))}
	for i, path := range s.paths {
		p.Changes[i] = Change{Op: Create, Path: path}
	}
	return p, nil
}

func (s *staging) made(dir string) bool {
	_, ok := s.dirs.Load(dir)
	return ok
}

func (s *staging) discard() {
	s.finish()
	if !s.done {
		os.RemoveAll(s.dir)
	}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return !errors.Is(err, fs.ErrNotExist)
}
