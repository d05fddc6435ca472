package output

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

// Apply carries out plan under root: writes in parallel, each file
// atomically, then deletions, then the removal of empty stale directories.
// It stops at the first error; files already written are complete.
func Apply(root string, plan *Plan) error {
	var writes, deletes []Change
	for _, c := range plan.Changes {
		if c.Op == Delete {
			deletes = append(deletes, c)
		} else {
			writes = append(writes, c)
		}
	}
	if err := parallel(writes, func(c Change) error { return writeFile(root, c) }); err != nil {
		return err
	}
	for _, c := range deletes {
		if err := os.Remove(filepath.Join(root, filepath.FromSlash(c.Path))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing stale %s: %w", c.Path, err)
		}
	}
	for _, d := range plan.Dirs {
		if err := os.Remove(filepath.Join(root, filepath.FromSlash(d))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing stale directory %s: %w", d, err)
		}
	}
	return nil
}

// parallel runs fn on every change with a few workers, returning the first
// error.
func parallel(changes []Change, fn func(Change) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	work := make(chan Change)
	for range min(2*runtime.GOMAXPROCS(0), max(1, len(changes))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range work {
				if err := fn(c); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for _, c := range changes {
		mu.Lock()
		stop := first != nil
		mu.Unlock()
		if stop {
			break
		}
		work <- c
	}
	close(work)
	wg.Wait()
	return first
}

// writeFile writes a change's content through a temporary file in the same
// directory, renamed into place, so that readers never see half a file.
func writeFile(root string, c Change) error {
	dst := filepath.Join(root, filepath.FromSlash(c.Path))
	dir := filepath.Dir(dst)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(c.Path), err)
	}
	tmp, err := os.CreateTemp(dir, ".strata-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", c.Path, err)
	}
	_, werr := tmp.Write(c.Data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), 0o644)); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", c.Path, err)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", c.Path, err)
	}
	return nil
}
