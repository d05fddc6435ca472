package output

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/strata-fleet/strata/internal/atomicfile"
)

// Apply carries out plan under root: writes in parallel, each file
// atomically, then deletions, then the removal of empty stale directories.
// It stops at the first error; files already written are complete.
func Apply(root string, plan *Plan) error {
	r, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	var writes, deletes []Change
	for _, c := range plan.Changes {
		if c.Op == Delete {
			deletes = append(deletes, c)
		} else {
			writes = append(writes, c)
		}
	}
	if err := parallel(writes, func(c Change) error { return writeFile(r, c) }); err != nil {
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

// writeFile writes a change's content atomically (package atomicfile), so
// that readers never see half a file.
func writeFile(r *os.Root, c Change) error {
	if err := atomicfile.WriteFile(r, c.Path, c.Data); err != nil {
		return fmt.Errorf("writing %s: %w", c.Path, err)
	}
	return nil
}
