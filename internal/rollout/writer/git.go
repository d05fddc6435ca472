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

// Run runs git and returns its output, trimmed.
func (r *Repo) Run(ctx context.Context, args ...string) (string, error) {
	return r.Git.Out(ctx, args...)
}

// Head returns the commit HEAD is at.
func (r *Repo) Head(ctx context.Context) (string, error) { return r.Git.Head(ctx) }

// PushTarget resolves where pushes go: remote (the current branch of the
// same name there), or the branch's upstream.
func (r *Repo) PushTarget(ctx context.Context, remote string) error {
	branch, err := r.Git.Branch(ctx)
	if err != nil {
		return fmt.Errorf("the repository is not on a branch (a rollout commits and pushes each step): %w", err)
	}
	if remote != "" {
		if _, err := r.Run(ctx, "remote", "get-url", remote); err != nil {
			return fmt.Errorf("--remote %s: no such remote", remote)
		}
		r.Remote, r.Branch = remote, branch
		return nil
	}
	up, err := r.Run(ctx, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}")
	if err != nil {
		return fmt.Errorf("branch %s has no upstream to push the rollout's commits to: give --remote, or set one with git push -u", branch)
	}
	r.Remote, _ = r.Run(ctx, "config", "branch."+branch+".remote")
	r.Branch = strings.TrimPrefix(up, r.Remote+"/")
	if m, err := r.Run(ctx, "config", "branch."+branch+".merge"); err == nil && m != "" {
		r.Branch = strings.TrimPrefix(m, "refs/heads/")
	}
	return nil
}

// Push pushes HEAD to the remote branch.
func (r *Repo) Push(ctx context.Context) error {
	_, err := r.Run(ctx, "push", "-q", r.Remote, "HEAD:refs/heads/"+r.Branch)
	if err != nil {
		return fmt.Errorf("pushing to %s %s (if someone else pushed meanwhile, pull and run the rollout again): %w", r.Remote, r.Branch, err)
	}
	return nil
}

// Unpushed reports whether HEAD has commits the remote branch lacks (all
// of them when the remote has no such branch yet: the first push makes
// it); a branch only behind the remote is fast-forwarded to it first.
func (r *Repo) Unpushed(ctx context.Context) (bool, error) {
	heads, err := r.Run(ctx, "ls-remote", "--heads", r.Remote, "refs/heads/"+r.Branch)
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
	out, err := r.Run(ctx, "rev-list", "--count", tip+"..HEAD")
	if err != nil {
		return false, err
	}
	behind, err := r.Run(ctx, "rev-list", "--count", "HEAD.."+tip)
	if err != nil {
		return false, err
	}
	switch {
	case behind != "0" && out == "0":
		// Others pushed since this clone last fetched: go on from theirs.
		if _, err := r.Run(ctx, "merge", "-q", "--ff-only", tip); err != nil {
			return false, fmt.Errorf("bringing this branch up to %s %s: %w", r.Remote, r.Branch, err)
		}
		return false, nil
	case behind != "0":
		return false, fmt.Errorf("%s %s has %s commits this branch lacks: pull them, then run the rollout again", r.Remote, r.Branch, behind)
	}
	return out != "0", nil
}

// Moved fetches the remote branch and reports whether it has commits HEAD
// lacks (someone pushed meanwhile), with its commit.
func (r *Repo) Moved(ctx context.Context) (upstream string, moved bool) {
	upstream, err := r.Fetch(ctx)
	if err != nil {
		return "", false
	}
	behind, err := r.Run(ctx, "rev-list", "--count", "HEAD.."+upstream)
	return upstream, err == nil && behind != "0"
}

// ResetKeep moves HEAD to commit as git reset --keep does (every local
// change kept; none lost), after refreshing the index: a file a render
// rewrote with the same content is stat-dirty in the index, and reset
// --keep refused it ("Entry ... not uptodate. Cannot merge", the soak
// test), leaving the clone on its unpushed step.
func (r *Repo) ResetKeep(ctx context.Context, commit string) error {
	_, _ = r.Run(ctx, "update-index", "-q", "--refresh") // lists what differs: reset says
	if _, err := r.Run(ctx, "reset", "-q", "--keep", commit); err != nil {
		return fmt.Errorf("moving to %.12s, the remote's new commit: %w", commit, err)
	}
	return nil
}

// Landed reports whether upstream, the remote branch as just fetched
// (Moved), has HEAD: a push refused because the remote moved meanwhile to
// the very commit it pushed (another clone made the same commit: the same
// parent, tree, message, author and second, as two runs of strata taking
// the same step or revert at once do) is no failure.
func (r *Repo) Landed(ctx context.Context, upstream string) bool {
	if upstream == "" {
		return false
	}
	_, err := r.Run(ctx, "merge-base", "--is-ancestor", "HEAD", upstream)
	return err == nil
}

// fetches holds a fetcher per fleet repository: the fetches of one
// process (its rollouts', the --watch runner's) go one at a time. Each
// fetch rewrites FETCH_HEAD and the remote-tracking branch, so two at once
// break ("cannot lock ref") or read FETCH_HEAD while the other rewrites it
// (an "ambiguous argument" seen at 200 patches).
var fetches sync.Map

// fetcher serializes a repository's fetches and shares those of its
// remote branch: a rollout that asks for the branch while others wait
// takes the result of a fetch that began after it asked, so that 100
// rollouts checking the remote before their steps (freezes, the remote's
// moves) make a fetch or two, not 100 in a row.
type fetcher struct {
	// begun counts the branch fetches begun; the rest is held by mu,
	// held while a fetch runs: the last fetch that succeeded, its number,
	// its branch and what it fetched.
	begun          atomic.Uint64
	mu             sync.Mutex
	done           uint64
	remote, branch string
	tip            string
	// asked, set by tests only, is told when a call has read where the
	// fetches stand.
	asked func()
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
// of it begun after this call fetched. A failed fetch is not shared: it
// may have failed for its caller alone (its context ended).
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

// FetchBranch fetches branch from remote in the repository dir with g and
// returns
// the commit it fetched, read before another fetch of this process (a
// rollout's, Fetch) rewrites FETCH_HEAD; or what a fetch of it that began
// after this call fetched (fetcher): how each rollout fetches. The same
// fetch brings the remote's record (record.Refspec).
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

// Fetch fetches the remote branch and returns the commit it fetched
// (FetchBranch).
func (r *Repo) Fetch(ctx context.Context) (string, error) {
	return FetchBranch(ctx, r.Dir, r.Git.Git, r.Remote, r.Branch)
}
