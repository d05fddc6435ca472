package writer

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/record"
)

// Repo is what a rollout does with git: its repository, and the remote
// branch its steps are pushed to (PushTarget).
type Repo struct {
	Git git.Repo
	// Dir is the fleet repository, which fetches are serialized by.
	Dir    string
	Remote string // where pushes go
	Branch string // the remote branch pushed to
}

// PushTarget resolves where pushes go: remote (the current branch of the
// same name there), or the branch's upstream.
func (r *Repo) PushTarget(ctx context.Context, remote string) error {
	branch, err := r.Git.Branch(ctx)
	if err != nil {
		return fmt.Errorf("the repository is not on a branch (a rollout commits and pushes each step): %w", err)
	}
	if remote != "" {
		if _, err := r.Git.Out(ctx, "remote", "get-url", remote); err != nil {
			return fmt.Errorf("--remote %s: no such remote", remote)
		}
		r.Remote, r.Branch = remote, branch
		return nil
	}
	up, err := r.Git.Out(ctx, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}")
	if err != nil {
		return fmt.Errorf("branch %s has no upstream to push the rollout's commits to: give --remote, or set one with git push -u", branch)
	}
	r.Remote, _ = r.Git.Out(ctx, "config", "branch."+branch+".remote")
	r.Branch = strings.TrimPrefix(up, r.Remote+"/")
	if m, err := r.Git.Out(ctx, "config", "branch."+branch+".merge"); err == nil && m != "" {
		r.Branch = strings.TrimPrefix(m, "refs/heads/")
	}
	return nil
}

// Push pushes HEAD to the remote branch.
func (r *Repo) Push(ctx context.Context) error {
	_, err := r.Git.Out(ctx, "push", "-q", r.Remote, "HEAD:refs/heads/"+r.Branch)
	if err != nil {
		return fmt.Errorf("pushing to %s %s (if someone else pushed meanwhile, pull and run the rollout again): %w", r.Remote, r.Branch, err)
	}
	return nil
}

// Unpushed reports whether HEAD has commits the remote branch lacks (all
// of them when the remote has no such branch yet: the first push makes
// it); a branch only behind the remote is fast-forwarded to it first.
func (r *Repo) Unpushed(ctx context.Context) (bool, error) {
	heads, err := r.Git.Out(ctx, "ls-remote", "--heads", r.Remote, "refs/heads/"+r.Branch)
	if err != nil {
		return false, fmt.Errorf("reading the branches of %s: %w", r.Remote, err)
	}
	if heads == "" {
		return true, nil
	}
	tip, err := r.Fetch(ctx)
	if err != nil {
		return false, err
	}
	out, err := r.Git.Out(ctx, "rev-list", "--count", tip+"..HEAD")
	if err != nil {
		return false, err
	}
	behind, err := r.Git.Out(ctx, "rev-list", "--count", "HEAD.."+tip)
	if err != nil {
		return false, err
	}
	switch {
	case behind != "0" && out == "0":
		// Others pushed since this clone last fetched: go on from theirs.
		if _, err := r.Git.Out(ctx, "merge", "-q", "--ff-only", tip); err != nil {
			return false, fmt.Errorf("bringing this branch up to %s %s: %w", r.Remote, r.Branch, err)
		}
		return false, nil
	case behind != "0":
		return false, fmt.Errorf("%s %s has %s commits this branch lacks: pull them, then run the rollout again", r.Remote, r.Branch, behind)
	}
	return out != "0", nil
}

// Moved fetches the remote branch and reports whether it has commits HEAD
// lacks (someone pushed meanwhile), with its commit; an error when that
// is not known.
func (r *Repo) Moved(ctx context.Context) (upstream string, moved bool, err error) {
	if upstream, err = r.Fetch(ctx); err != nil {
		return "", false, fmt.Errorf("fetching to see whether the remote moved: %w", err)
	}
	behind, err := r.Git.Out(ctx, "rev-list", "--count", "HEAD.."+upstream)
	return upstream, err == nil && behind != "0", err
}

// ResetKeep moves HEAD to commit (git reset --keep: no local change lost)
// after refreshing the index, where a file rewritten alike is stat-dirty
// and refused ("not uptodate").
func (r *Repo) ResetKeep(ctx context.Context, commit string) error {
	_, _ = r.Git.Out(ctx, "update-index", "-q", "--refresh") // lists what differs: reset says
	if _, err := r.Git.Out(ctx, "reset", "-q", "--keep", commit); err != nil {
		return fmt.Errorf("moving to %.12s, the remote's new commit: %w", commit, err)
	}
	return nil
}

// Landed reports whether upstream (Moved) has HEAD: another clone pushed
// the very commit (two runs taking the same step in the same second).
func (r *Repo) Landed(ctx context.Context, upstream string) bool {
	if upstream == "" {
		return false
	}
	_, err := r.Git.Out(ctx, "merge-base", "--is-ancestor", "HEAD", upstream)
	return err == nil
}

// fetches holds a fetcher per fleet repository: a process's fetches go
// one at a time (two at once break on FETCH_HEAD and the remote-tracking
// refs).
var fetches sync.Map

// fetcher serializes a repository's fetches and shares those of its
// branch: a caller takes the result of a fetch begun after it asked, so
// 100 rollouts make a fetch or two, not 100.
type fetcher struct {
	// begun counts the fetches begun; mu, held while one runs, guards the
	// last that succeeded: its number, branch and tip.
	begun          atomic.Uint64
	mu             sync.Mutex
	done           uint64
	remote, branch string
	tip            string
	asked          func() // tests: told when a call read begun
}

func fetcherOf(dir string) *fetcher {
	f, _ := fetches.LoadOrStore(dir, &fetcher{})
	return f.(*fetcher)
}

// lockFetches takes the fetch mutex of the repository in dir; it returns
// the unlock.
func lockFetches(dir string) func() {
	f := fetcherOf(dir)
	f.mu.Lock()
	return f.mu.Unlock
}

// fetchBranch fetches remote's branch with fetch, or returns what a fetch
// begun after this call fetched; a failure is not shared.
func (f *fetcher) fetchBranch(remote, branch string, fetch func() (string, error)) (string, error) {
	want := f.begun.Load() + 1
	if f.asked != nil {
		f.asked()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done >= want && f.remote == remote && f.branch == branch {
		return f.tip, nil
	}
	n := f.begun.Add(1)
	tip, err := fetch()
	if err == nil {
		f.done, f.tip, f.remote, f.branch = n, tip, remote, branch
	}
	return tip, err
}

// Fetch runs git fetch -q args in the repository dir with g, one at a
// time with the fetches of this process's rollouts.
func Fetch(ctx context.Context, dir string, g git.Runner, args ...string) error {
	return WithFetches(dir, func() error {
		_, err := g.Run(ctx, append([]string{"fetch", "-q"}, args...)...)
		return err
	})
}

// WithFetches runs f one at a time with the fetches of this process's
// rollouts in the repository dir: f writes a ref a fetch writes too (the
// record's tracking ref, record.Log.Exclusive).
func WithFetches(dir string, f func() error) error {
	defer lockFetches(dir)()
	return f()
}

// FetchBranch fetches branch and the record (record.Refspec) from remote
// in dir and returns the branch's commit, shared by the fetcher.
func FetchBranch(ctx context.Context, dir string, g git.Runner, remote, branch string) (string, error) {
	return fetcherOf(dir).fetchBranch(remote, branch, func() (string, error) {
		r := git.Repo{Git: g}
		// The record after the branch: FETCH_HEAD's first line.
		if _, err := r.Out(ctx, "fetch", "-q", remote, branch, record.Refspec(remote)); err != nil {
			return "", fmt.Errorf("fetching %s %s: %w", remote, branch, err)
		}
		return r.Out(ctx, "rev-parse", "FETCH_HEAD")
	})
}

// Fetch fetches the remote branch and returns its commit (FetchBranch).
func (r *Repo) Fetch(ctx context.Context) (string, error) {
	return FetchBranch(ctx, r.Dir, r.Git.Git, r.Remote, r.Branch)
}
