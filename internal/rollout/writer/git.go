package rollout

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/record"
)

// Git runs git in the fleet repository and returns its standard output;
// ExecGit is the real one. (They are package git's, named here for the
// rollout's callers.)
type Git = git.Runner

// ExecGit runs the git program in Dir.
type ExecGit = git.Exec

// GitError is a git command that failed.
type GitError = git.Error

// repo is what the rollout does with git.
type repo struct {
	git    git.Repo
	dir    string // the fleet repository, which fetches are serialized by
	remote string // where pushes go
	branch string // the remote branch pushed to
}

func (r *repo) run(ctx context.Context, args ...string) (string, error) {
	return r.git.Out(ctx, args...)
}

// dirty lists the uncommitted changes under paths.
func (r *repo) dirty(ctx context.Context, paths ...string) ([]string, error) {
	return r.git.Dirty(ctx, paths...)
}

// head returns the commit HEAD is at.
func (r *repo) head(ctx context.Context) (string, error) { return r.git.Head(ctx) }

// pushTarget resolves where pushes go: remote (the current branch of the
// same name there), or the branch's upstream.
func (r *repo) pushTarget(ctx context.Context, remote string) error {
	branch, err := r.git.Branch(ctx)
	if err != nil {
		return fmt.Errorf("the repository is not on a branch (a rollout commits and pushes each step): %w", err)
	}
	if remote != "" {
		if _, err := r.run(ctx, "remote", "get-url", remote); err != nil {
			return fmt.Errorf("--remote %s: no such remote", remote)
		}
		r.remote, r.branch = remote, branch
		return nil
	}
	up, err := r.run(ctx, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}")
	if err != nil {
		return fmt.Errorf("branch %s has no upstream to push the rollout's commits to: give --remote, or set one with git push -u", branch)
	}
	r.remote, _ = r.run(ctx, "config", "branch."+branch+".remote")
	r.branch = strings.TrimPrefix(up, r.remote+"/")
	if m, err := r.run(ctx, "config", "branch."+branch+".merge"); err == nil && m != "" {
		r.branch = strings.TrimPrefix(m, "refs/heads/")
	}
	return nil
}

// push pushes HEAD to the remote branch.
func (r *repo) push(ctx context.Context) error {
	_, err := r.run(ctx, "push", "-q", r.remote, "HEAD:refs/heads/"+r.branch)
	if err != nil {
		return fmt.Errorf("pushing to %s %s (if someone else pushed meanwhile, pull and run the rollout again): %w", r.remote, r.branch, err)
	}
	return nil
}

// unpushed reports whether HEAD has commits the remote branch lacks (all
// of them when the remote has no such branch yet: the first push makes
// it); a branch only behind the remote is fast-forwarded to it first.
func (r *repo) unpushed(ctx context.Context) (bool, error) {
	heads, err := r.run(ctx, "ls-remote", "--heads", r.remote, "refs/heads/"+r.branch)
	if err != nil {
		return false, fmt.Errorf("reading the branches of %s: %w", r.remote, err)
	}
	if heads == "" {
		return true, nil
	}
	tip, err := r.fetch(ctx)
	if err != nil {
		return false, err
	}
	out, err := r.run(ctx, "rev-list", "--count", tip+"..HEAD")
	if err != nil {
		return false, err
	}
	behind, err := r.run(ctx, "rev-list", "--count", "HEAD.."+tip)
	if err != nil {
		return false, err
	}
	switch {
	case behind != "0" && out == "0":
		// Others pushed since this clone last fetched: go on from theirs.
		if _, err := r.run(ctx, "merge", "-q", "--ff-only", tip); err != nil {
			return false, fmt.Errorf("bringing this branch up to %s %s: %w", r.remote, r.branch, err)
		}
		return false, nil
	case behind != "0":
		return false, fmt.Errorf("%s %s has %s commits this branch lacks: pull them, then run the rollout again", r.remote, r.branch, behind)
	}
	return out != "0", nil
}

// moved fetches the remote branch and reports whether it has commits HEAD
// lacks (someone pushed meanwhile), with its commit.
func (r *repo) moved(ctx context.Context) (upstream string, moved bool) {
	upstream, err := r.fetch(ctx)
	if err != nil {
		return "", false
	}
	behind, err := r.run(ctx, "rev-list", "--count", "HEAD.."+upstream)
	return upstream, err == nil && behind != "0"
}

// fetches holds a fetcher per fleet repository: the fetches of one
// process (its rollouts', the --watch runner's) go one at a time. Each
// fetch rewrites FETCH_HEAD and the remote-tracking branch, so two at once
// fail ("cannot lock ref") or read FETCH_HEAD while the other rewrites it
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

// Fetch runs git fetch -q args in env's repository, one at a time with the
// fetches of this process's rollouts.
func Fetch(ctx context.Context, env Env, args ...string) error {
	defer lockFetches(env.Dir)()
	_, err := env.Git.Run(ctx, append([]string{"fetch", "-q"}, args...)...)
	return err
}

// FetchBranch fetches branch from remote in env's repository and returns
// the commit it fetched, read before another fetch of this process (a
// rollout's, Fetch) rewrites FETCH_HEAD; or what a fetch of it that began
// after this call fetched (fetcher): how each rollout fetches. The same
// fetch brings the remote's record (record.Refspec).
func FetchBranch(ctx context.Context, env Env, remote, branch string) (string, error) {
	return fetcherOf(env.Dir).fetchBranch(remote, branch, func() (string, error) {
		r := git.Repo{Git: env.Git}
		// The record after the branch: FETCH_HEAD's first line.
		if _, err := r.Out(ctx, "fetch", "-q", remote, branch, record.Refspec(remote)); err != nil {
			return "", fmt.Errorf("fetching %s %s: %w", remote, branch, err)
		}
		return r.Out(ctx, "rev-parse", "FETCH_HEAD")
	})
}

// fetch fetches the remote branch and returns the commit it fetched
// (FetchBranch).
func (r *repo) fetch(ctx context.Context) (string, error) {
	return FetchBranch(ctx, Env{Dir: r.dir, Git: r.git.Git}, r.remote, r.branch)
}
