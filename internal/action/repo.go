package action

import (
	"context"
	"fmt"
	"io/fs"
	"os"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/lock"
	"github.com/strata-fleet/strata/internal/rootfs"
)

// Repo is an open fleet repository: its directory and a read-only view of
// it that refuses paths (and symbolic links) leaving it.
type Repo struct {
	Dir  string
	FS   fs.FS
	Root *os.Root
}

// Open opens the fleet repository at dir.
func Open(dir string) (*Repo, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", dir, err)
	}
	return &Repo{Dir: dir, FS: rootfs.New(root), Root: root}, nil
}

// Close closes the repository's root.
func (r *Repo) Close() error { return r.Root.Close() }

// Lock takes the repository's lock (package lock) for a write; the caller
// releases it as soon as the write is done.
func (r *Repo) Lock(ctx context.Context, o lock.Options) (*lock.Lock, error) {
	return lock.Acquire(ctx, r.Dir, o)
}

// LoadComponent loads only the component of the cluster type, what a
// promotion works on; when either does not exist it loads the whole fleet,
// so that the error can list the valid choices.
func (r *Repo) LoadComponent(clusterType, component string) (*fleet.Fleet, error) {
	return LoadComponent(r.FS, clusterType, component)
}

// LoadComponent is Repo.LoadComponent on fsys.
func LoadComponent(fsys fs.FS, clusterType, component string) (*fleet.Fleet, error) {
	f, err := fleet.LoadComponent(fsys, clusterType, component)
	if err != nil {
		return nil, err
	}
	if ct := f.ClusterType(clusterType); ct != nil && ct.Component(component) != nil {
		return f, nil
	}
	return fleet.Load(fsys)
}
