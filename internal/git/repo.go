package git

import (
	"context"
	"fmt"
	"strings"
)

// Repo is what strata does with a work tree through a Runner.
type Repo struct {
	Git Runner
	// checks, set by Batch, keeps what git commit would do here.
	checks *checks
}

// Out runs git args and returns its output without surrounding space.
func (r Repo) Out(ctx context.Context, args ...string) (string, error) {
	out, err := r.Git.Run(ctx, args...)
	return strings.TrimSpace(out), err
}

// Head returns the commit HEAD is at.
func (r Repo) Head(ctx context.Context) (string, error) { return r.Out(ctx, "rev-parse", "HEAD") }

// Branch returns the branch HEAD is on; an error when it is detached.
func (r Repo) Branch(ctx context.Context) (string, error) {
	return r.Out(ctx, "symbolic-ref", "--short", "HEAD")
}

// Dirty lists the uncommitted changes under paths (all of the work tree
// when none is given), as git status --porcelain lines ("XY path"),
// untracked files included one by one. Paths are relative to the
// directory git runs in (Exec.Dir, which may be below the top of the work
// tree) when they are under it.
func (r Repo) Dirty(ctx context.Context, paths ...string) ([]string, error) {
	prefix, err := r.Out(ctx, "rev-parse", "--show-prefix")
	if err != nil {
		return nil, err
	}
	out, err := r.Git.Run(ctx, append([]string{"status", "--porcelain", "--untracked-files=all", "--"}, paths...)...)
	out = strings.TrimRight(out, "\n") // not TrimSpace: a line starts with its status, " M"
	if err != nil || out == "" {
		return nil, err
	}
	lines := strings.Split(out, "\n")
	if prefix != "" {
		for i, l := range lines {
			if len(l) > 3 {
				lines[i] = l[:3] + strings.ReplaceAll(strings.TrimPrefix(l[3:], prefix), " -> "+prefix, " -> ")
			}
		}
	}
	return lines, nil
}

// DirtyPath is the path of a Dirty line (for a rename, where it went).
func DirtyPath(line string) string {
	p := line
	if len(p) > 3 {
		p = p[3:]
	}
	if _, to, ok := strings.Cut(p, " -> "); ok {
		p = to
	}
	return strings.Trim(p, `"`)
}

// Switch puts HEAD on branch name: the branch when it exists, else a new
// one at HEAD (created reports which). Uncommitted changes stay in the
// work tree; git refuses a switch that would overwrite them.
func (r Repo) Switch(ctx context.Context, name string) (created bool, err error) {
	if _, err := r.Out(ctx, "check-ref-format", "--branch", name); err != nil {
		return false, fmt.Errorf("%q is not a valid branch name", name)
	}
	if _, err := r.Out(ctx, "rev-parse", "--verify", "--quiet", "refs/heads/"+name); err == nil {
		_, err := r.Out(ctx, "switch", "-q", name)
		return false, err
	}
	_, err = r.Out(ctx, "switch", "-q", "-c", name)
	return err == nil, err
}

// Stage stages everything under paths (additions, changes and removals)
// and returns the files under paths whose staged content differs from
// HEAD's, relative to the work tree's directory: what a commit of paths
// changes against its parent.
//
// git add ignores ctime (core.trustctime=false, as git's documentation
// advises when something outside Git changes it): render links the
// unchanged files of each target it re-renders into the new tree, which
// changes their ctime, and git then read and hashed every one of them
// again. A file render or an editor rewrites has a new mtime or inode.
func (r Repo) Stage(ctx context.Context, paths ...string) ([]string, error) {
	if _, err := r.Out(ctx, append([]string{"-c", "core.trustctime=false", "add", "-A", "--"}, paths...)...); err != nil {
		return nil, err
	}
	staged, err := r.Out(ctx, append([]string{"diff", "--cached", "--no-renames", "--relative", "--name-only", "-z", "--"}, paths...)...)
	if err != nil || staged == "" {
		return nil, err
	}
	return strings.Split(strings.TrimSuffix(staged, "\x00"), "\x00"), nil
}

// Commit commits everything under paths (additions, changes and
// removals), and nothing else: what else is staged stays staged, not
// committed. It returns the new commit. An empty commit is made when
// nothing under paths changed (a step that changes no file is still a
// step).
func (r Repo) Commit(ctx context.Context, message string, paths ...string) (string, error) {
	staged, err := r.Stage(ctx, paths...)
	if err != nil {
		return "", err
	}
	return r.CommitStaged(ctx, message, staged)
}

// CommitStaged commits the files Stage returned, and nothing else (with
// no file, an empty commit), for a caller that staged them itself: with
// git's plumbing from the index when git commit would do nothing more
// (plumb), else with git commit.
func (r Repo) CommitStaged(ctx context.Context, message string, staged []string) (string, error) {
	if commit, ok, err := r.plumb(ctx, message, staged); ok || err != nil {
		return commit, err
	}
	// --only: the content of these files, whatever else is in the index.
	args := append([]string{"commit", "-q", "--allow-empty", "--only", "-m", message, "--"}, staged...)
	if _, err := r.Out(ctx, args...); err != nil {
		return "", err
	}
	return r.Head(ctx)
}

// Short abbreviates a full commit hash as git does (its first 12 hex
// digits); any other revision is itself.
func Short(rev string) string {
	if len(rev) >= 40 && strings.Trim(rev, "0123456789abcdef") == "" {
		return rev[:12]
	}
	return rev
}
