package cli

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/lock"
	"github.com/strata-fleet/strata/internal/render"
)

// repo is an open fleet repository (action.Repo), with the short names
// the commands use for its directory, read-only view and root.
type repo struct {
	*action.Repo
	dir  string
	fsys fs.FS
	root *os.Root
}

// open is every command's preamble (action.OpenWith): the repository
// found from --root, o.Journal's warnings on stderr, the lock in o.Lock's
// mode. Close releases both.
func (g *globals) open(o action.Options) (*repo, error) {
	dir, err := g.findRoot()
	if err != nil {
		return nil, err
	}
	o.LockOptions = g.lockOptions()
	o.Resume, o.Git, o.Message = g.strata("promote", "--resume"), g.gitCommand(), g.clean
	o.Warn = func(msg string) { fmt.Fprintf(g.stderr, "warning: %s\n", msg) }
	a, err := action.OpenWith(context.Background(), dir, o)
	if err != nil {
		return nil, err
	}
	return &repo{Repo: a, dir: a.Dir, fsys: a.FS, root: a.Root}, nil
}

// openRendered opens the repository without a lock (open) and loads its
// fleet and chart (render.Load); closing the repository is the caller's.
func (g *globals) openRendered() (*repo, *render.Renderer, error) {
	r, err := g.open(action.Options{})
	if err != nil {
		return nil, nil, err
	}
	rr, err := render.Load(r.fsys)
	if err != nil {
		r.Close()
		return nil, nil, err
	}
	return r, rr, nil
}

// exclusiveIf is the lock of a command that writes unless it only shows
// what it would do (--dry-run, --list).
func exclusiveIf(write bool) action.LockMode {
	if write {
		return action.ExclusiveLock
	}
	return action.NoLock
}

// lockOptions are the lock's options of this command line: who holds it,
// how long to wait (--wait), saying so on stderr.
func (g *globals) lockOptions() lock.Options {
	return lock.Options{
		Command: strings.Join(append([]string{"strata"}, g.args...), " "),
		Wait:    g.wait,
		Waiting: func(h lock.Holder) {
			if g.wait > 0 {
				fmt.Fprintf(g.stderr, "waiting up to %s for the repository lock held by %s\n", g.wait, h)
			}
		},
	}
}

// completion offers, for the first upTo arguments, what offer finds in the
// fleet (without one, nothing); never file names.
func (g *globals) completion(upTo int, offer func(f *fleet.Fleet, args []string) []string) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		var out []string
		if len(args) < upTo {
			if f := g.completionFleet(); f != nil {
				out = offer(f, args)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completionFleet loads the fleet for shell completion, or returns nil.
func (g *globals) completionFleet() *fleet.Fleet {
	r, err := g.open(action.Options{Journal: action.NoJournal})
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

// completeTargetPattern offers what every --target takes (targetPatterns).
func (g *globals) completeTargetPattern() cobra.CompletionFunc {
	return g.completion(math.MaxInt, func(f *fleet.Fleet, _ []string) []string { return targetPatterns(f) })
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
