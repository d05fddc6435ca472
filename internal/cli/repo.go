package cli

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/lock"
)

// repo is an open fleet repository (action.Repo), with the short names
// the commands use for its directory, read-only view and root.
type repo struct {
	*action.Repo
	dir  string
	fsys fs.FS
	root *os.Root
	held *lock.Lock // taken by openToWrite; Close releases it
}

// openToWrite is openRepo, then, when write is true, the repository's lock
// (lock): the preamble of a command that writes unless it only shows what
// it would do. Close releases the lock, then closes the repository.
func (g *globals) openToWrite(write bool) (*repo, error) {
	r, err := g.openRepo()
	if err != nil || !write {
		return r, err
	}
	if r.held, err = g.lock(r.dir); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// Close releases the lock openToWrite took and closes the repository.
func (r *repo) Close() error {
	if r.held != nil {
		r.held.Release()
	}
	return r.Repo.Close()
}

// openRepo opens the repository and warns about an unfinished promotion
// (warnUnfinished).
func (g *globals) openRepo() (*repo, error) {
	r, err := g.openRepoQuiet()
	if err != nil {
		return nil, err
	}
	g.warnUnfinished(r)
	return r, nil
}

// openRepoQuiet opens the repository, for commands that deal with an
// unfinished promotion themselves or must print nothing (completion).
func (g *globals) openRepoQuiet() (*repo, error) {
	dir, err := g.findRoot()
	if err != nil {
		return nil, err
	}
	a, err := action.Open(dir)
	if err != nil {
		return nil, err
	}
	return &repo{Repo: a, dir: a.Dir, fsys: a.FS, root: a.Root}, nil
}

// lock takes the lock of the repository at dir for a command that writes
// it (package lock), waiting up to --wait and saying so on stderr.
func (g *globals) lock(dir string) (*lock.Lock, error) {
	return g.lockFor(dir, false)
}

// lockFor takes the lock exclusive, or shared for a command that only
// compares the repository with its output (beside other readers, never
// beside a writer).
func (g *globals) lockFor(dir string, shared bool) (*lock.Lock, error) {
	return lock.Acquire(context.Background(), dir, g.lockOptions(shared))
}

// lockOptions are the lock's options of this command line: who holds it,
// how long to wait (--wait), saying so on stderr.
func (g *globals) lockOptions(shared bool) lock.Options {
	return lock.Options{
		Command: strings.Join(append([]string{"strata"}, g.args...), " "),
		Wait:    g.wait,
		Shared:  shared,
		Waiting: func(h lock.Holder) {
			if g.wait > 0 {
				fmt.Fprintf(g.stderr, "waiting up to %s for the repository lock held by %s\n", g.wait, h)
			}
		},
	}
}

// completionFleet loads the fleet for shell completion, or returns nil:
// completion offers nothing rather than an error.
func (g *globals) completionFleet() *fleet.Fleet {
	r, err := g.openRepoQuiet()
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

// completeTypeAndComponent offers the cluster types, then the components of
// the chosen one, for commands whose arguments start CLUSTER_TYPE COMPONENT.
func completeTypeAndComponent(f *fleet.Fleet, args []string) []string {
	var out []string
	switch len(args) {
	case 0:
		for _, ct := range f.ClusterTypes {
			out = append(out, ct.Name)
		}
	case 1:
		if ct := f.ClusterType(args[0]); ct != nil {
			for _, c := range ct.Components {
				out = append(out, c.Name)
			}
		}
	}
	return out
}

// completeTargetPattern offers what every --target takes (fleet.TargetPattern):
// each node of the sequence and each target, without and with its cluster
// type in front.
func (g *globals) completeTargetPattern(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	f := g.completionFleet()
	if f == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return targetPatterns(f), cobra.ShellCompDirectiveNoFileComp
}

// targetPatterns lists the names of f's targets and of their parent nodes,
// without a cluster type first, then with one, each once.
func targetPatterns(f *fleet.Fleet) []string {
	var plain, typed []string
	seen := map[string]bool{}
	add := func(list *[]string, name string) {
		if !seen[name] {
			seen[name] = true
			*list = append(*list, name)
		}
	}
	for _, ct := range f.ClusterTypes {
		for _, n := range ct.Targets {
			for p := n; p != nil && p.Depth > 0; p = p.Parent {
				add(&plain, p.ID())
				add(&typed, ct.Name+"/"+p.ID())
			}
		}
	}
	return append(plain, typed...)
}
