package cli

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/strata-fleet/strata/internal/fleet"
)

// repo is an open fleet repository: its directory and a read-only view of
// it that refuses paths (and symbolic links) leaving it.
type repo struct {
	dir  string
	fsys fs.FS
	root *os.Root
}

func (g *globals) openRepo() (*repo, error) {
	dir, err := g.findRoot()
	if err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", dir, err)
	}
	return &repo{dir: dir, fsys: r.FS(), root: r}, nil
}

func (r *repo) Close() error { return r.root.Close() }

// completionFleet loads the fleet for shell completion, or returns nil:
// completion offers nothing rather than an error.
func (g *globals) completionFleet() *fleet.Fleet {
	r, err := g.openRepo()
	if err != nil {
		return nil
	}
	defer r.Close()
	f, err := fleet.Load(r.fsys)
	if err != nil {
		return nil
	}
	return f
}
