package scaffold

import (
	"context"

	gitpkg "github.com/strata-fleet/strata/internal/git"
)

// Git says what InitGit did.
type Git struct {
	// Initialized is true when dir was not in a Git work tree and became a
	// repository (branch main).
	Initialized bool `json:"initialized"`
	// Commit is the first commit, "" when none was made: dir was already
	// in a repository (its owner commits), or Git has no identity (Reason).
	Commit string `json:"commit,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// InitGit makes dir a Git repository with the scaffold as its first
// commit. In an existing repository it stages nothing and commits
// nothing: what goes into someone's history is theirs to decide.
func InitGit(dir string) (Git, error) {
	if _, err := git(dir, "rev-parse", "--is-inside-work-tree"); err == nil {
		return Git{Reason: "already in a Git repository"}, nil
	}
	if _, err := git(dir, "init", "-q", "-b", "main"); err != nil {
		return Git{}, err
	}
	g := Git{Initialized: true}
	if _, err := git(dir, "add", "-A"); err != nil {
		return g, err
	}
	if _, err := git(dir, "var", "GIT_COMMITTER_IDENT"); err != nil {
		g.Reason = "Git has no identity (git config user.name and user.email)"
		return g, nil
	}
	if _, err := git(dir, "commit", "-q", "-m", "Start the fleet with strata init"); err != nil {
		return g, err
	}
	out, err := git(dir, "rev-parse", "HEAD")
	g.Commit = out
	return g, err
}

func git(dir string, args ...string) (string, error) {
	return gitpkg.Repo{Git: gitpkg.Exec{Dir: dir}}.Out(context.Background(), args...)
}
