package action

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/strata-fleet/strata/internal/git"
)

// onBranch is a writing command's commit of its own files, on a branch:
// promote --commit, pin --commit and freeze share it. The command checks,
// before it changes anything, that the work tree has a commit (ready) and
// that the files it will commit hold nobody else's change (dirty); once
// its own checks pass it switches to the branch (switchTo), changes its
// files, then commits them (commit) and reads where the commit landed
// (landed).
type onBranch struct {
	git    git.Repo
	branch string // the branch to commit on; "": HEAD's
}

func newOnBranch(dir, branch string) *onBranch {
	return &onBranch{git: git.Repo{Git: git.Exec{Dir: dir}}, branch: branch}
}

// ready returns an error when the work tree has no commit to commit on
// (or is no Git work tree).
func (b *onBranch) ready(ctx context.Context) error {
	_, err := b.git.Head(ctx)
	return err
}

// dirty lists the uncommitted changes under paths (git.Repo.Dirty).
func (b *onBranch) dirty(ctx context.Context, paths ...string) ([]string, error) {
	return b.git.Dirty(ctx, paths...)
}

// switchTo puts HEAD on the branch (created at HEAD when it does not
// exist: created says so); nothing without one.
func (b *onBranch) switchTo(ctx context.Context) (created bool, err error) {
	if b.branch == "" {
		return false, nil
	}
	created, err = b.git.Switch(ctx, b.branch)
	if err != nil {
		return false, fmt.Errorf("--branch %s: %w", b.branch, err)
	}
	return created, nil
}

// commit commits everything under paths, and nothing else, with message
// (git.Repo.Commit).
func (b *onBranch) commit(ctx context.Context, message string, paths ...string) (*BranchCommit, error) {
	commit, err := b.git.Commit(ctx, message, paths...)
	if err != nil {
		return nil, err
	}
	return &BranchCommit{Commit: commit, Branch: b.landed(ctx), Message: message}, nil
}

// landed is the branch HEAD is on, "" when it is detached (the commit is
// HEAD's).
func (b *onBranch) landed(ctx context.Context) string {
	branch, err := b.git.Branch(ctx)
	if err != nil {
		return ""
	}
	return branch
}

// BranchCommit is the commit a command made and where it landed.
type BranchCommit struct {
	Commit string
	// Branch is the branch it is on ("": a detached HEAD); NewBranch says
	// that the command created it.
	Branch    string
	NewBranch bool
	Message   string
}

// GitIdentity is "Name <email>" as git would sign a commit in dir: the
// GIT_AUTHOR_* variables, else user.name and user.email; "" when either is
// unknown (git's guesses from the host name are not an approver).
func GitIdentity(dir string) string {
	get := func(env, key string) string {
		if v := strings.TrimSpace(os.Getenv(env)); v != "" {
			return v
		}
		out, err := git.Output(dir, nil, "config", "--get", key)
		if err != nil {
			return ""
		}
		return strings.TrimSpace(out)
	}
	name, email := get("GIT_AUTHOR_NAME", "user.name"), get("GIT_AUTHOR_EMAIL", "user.email")
	if name == "" || email == "" {
		return ""
	}
	return name + " <" + email + ">"
}
