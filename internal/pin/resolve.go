package pin

import (
	"errors"
	"fmt"
	"strings"

	gitpkg "github.com/strata-fleet/strata/internal/git"
)

// Resolution is what the fleet repository's Git clone knows of a revision
// about to be pinned. Argo CD resolves the pin in the repository it pulls
// from (repository.url), which the clone knows only as of its last fetch:
// what only that remote can tell is said in Warnings.
type Resolution struct {
	// Kind is "branch", "tag", "commit", "HEAD", or "unchecked" (--force
	// on a revision the clone cannot resolve).
	Kind string `json:"kind"`
	// Commit is the commit it names in the clone.
	Commit   string   `json:"commit,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// UnresolvedError is a revision the clone cannot resolve; pinning it needs
// --force.
type UnresolvedError struct {
	Revision, Reason string
}

func (e *UnresolvedError) Error() string {
	return fmt.Sprintf("revision %s: %s (pass --force to pin it unchecked)", e.Revision, e.Reason)
}

// Resolve looks rev up in the Git repository that holds dir, as Argo CD will
// look it up in the remote: a branch, a tag, a commit hash, or HEAD. A
// revision the clone does not have, or that names something Argo CD would
// not find by that name (origin/main, a ref path), is an *UnresolvedError,
// unless force, which returns it as "unchecked" with a warning. A revision
// the clone has but its remote may not (a branch never pushed, a commit on no
// remote branch, a tag) comes with warnings.
func Resolve(dir, rev string, force bool) (*Resolution, error) {
	res, err := resolve(dir, rev)
	var unresolved *UnresolvedError
	if force && errors.As(err, &unresolved) {
		return &Resolution{Kind: "unchecked", Warnings: []string{"revision " + rev + ": " + unresolved.Reason + "; pinned unchecked (--force)"}}, nil
	}
	return res, err
}

func resolve(dir, rev string) (*Resolution, error) {
	if _, err := git(dir, "rev-parse", "--git-dir"); err != nil {
		return nil, &UnresolvedError{rev, fmt.Sprintf("%s is not in a Git repository, so strata cannot tell whether it exists", dir)}
	}
	remotes, err := gitLines(dir, "remote")
	if err != nil {
		return nil, err
	}
	commitOf := func(ref string) string {
		out, err := git(dir, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
		if err != nil {
			return ""
		}
		return strings.TrimSpace(out)
	}
	branch, tag := commitOf("refs/heads/"+rev), commitOf("refs/tags/"+rev)
	onRemote := map[string]string{} // remote -> commit of its branch rev
	for _, r := range remotes {
		if c := commitOf("refs/remotes/" + r + "/" + rev); c != "" {
			onRemote[r] = c
		}
	}
	res := &Resolution{}
	switch {
	case rev == "HEAD":
		res.Kind, res.Commit = "HEAD", commitOf("HEAD")
	case branch != "" || len(onRemote) > 0:
		res.Kind, res.Commit = "branch", branch
		if tag != "" {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s is both a branch and a tag of this clone: rename one, or Argo CD may resolve the one you did not mean", rev))
		}
		res.Warnings = append(res.Warnings, branchWarnings(rev, branch, remotes, onRemote)...)
		if res.Commit == "" {
			r := firstKey(remotes, onRemote)
			res.Commit = onRemote[r]
			res.Warnings = append(res.Warnings, fmt.Sprintf("branch %s is here only as %s/%s, as of the last fetch: where it is now, only the remote can tell", rev, r, rev))
		}
	case tag != "":
		res.Kind, res.Commit = "tag", tag
		res.Warnings = append(res.Warnings, fmt.Sprintf("tag %s is in this clone; whether the remote has it, only the remote can tell (git push origin %s)", rev, rev))
		res.Warnings = append(res.Warnings, unpushed(dir, "tag "+rev, tag, remotes)...)
	case hexDigits(rev) && commitOf(rev) != "":
		res.Kind, res.Commit = "commit", commitOf(rev)
		if !strings.HasPrefix(res.Commit, rev) {
			return nil, &UnresolvedError{rev, fmt.Sprintf("names %s in this clone, not a commit whose hash starts with it", res.Commit)}
		}
		if len(rev) < len(res.Commit) {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s abbreviates commit %s: pin the full hash, which cannot become ambiguous", rev, res.Commit))
		}
		res.Warnings = append(res.Warnings, unpushed(dir, "commit "+short(rev), res.Commit, remotes)...)
	case commitOf(rev) != "":
		return nil, &UnresolvedError{rev, "is not a branch, tag or commit hash, though this clone resolves it (to " + short(commitOf(rev)) +
			"): Argo CD looks a pin up in the remote by name; pin the branch, tag or commit itself (origin/main is main)"}
	default:
		reason := "is not a branch, tag or commit of this clone; only the remote can tell whether it has it (git fetch, then pin again)"
		if len(remotes) == 0 {
			reason = "is not a branch, tag or commit of this clone, which has no remote to fetch it from"
		}
		return nil, &UnresolvedError{rev, reason}
	}
	if len(remotes) == 0 {
		res.Warnings = append(res.Warnings, "this clone has no remote: only the repository Argo CD pulls from (repository.url) can tell whether it has "+rev)
	}
	return res, nil
}

// branchWarnings says what the remote-tracking branches tell of branch rev
// (local commit branch, "" when only remotes have it).
func branchWarnings(rev, branch string, remotes []string, onRemote map[string]string) []string {
	if len(remotes) == 0 {
		return nil
	}
	if len(onRemote) == 0 {
		return []string{fmt.Sprintf("branch %s exists only in this clone: push it (git push -u %s %s), or Argo CD cannot follow it", rev, remotes[0], rev)}
	}
	var out []string
	for _, r := range remotes {
		if c, ok := onRemote[r]; ok && branch != "" && c != branch {
			out = append(out, fmt.Sprintf("branch %s is at %s here and at %s on %s (as of the last fetch): Argo CD runs the remote's", rev, short(branch), short(c), r))
		}
	}
	return out
}

// unpushed warns when no remote-tracking branch contains commit.
func unpushed(dir, what, commit string, remotes []string) []string {
	if len(remotes) == 0 {
		return nil
	}
	out, err := git(dir, "for-each-ref", "--count=1", "--format=%(refname)", "--contains", commit, "refs/remotes")
	if err == nil && strings.TrimSpace(out) != "" {
		return nil
	}
	return []string{fmt.Sprintf("%s is on no branch of %s (as of the last fetch): push it before you commit the pin, or Argo CD cannot fetch it", what, strings.Join(remotes, ", "))}
}

func firstKey(order []string, m map[string]string) string {
	for _, k := range order {
		if _, ok := m[k]; ok {
			return k
		}
	}
	return ""
}

func hexDigits(s string) bool {
	return len(s) >= 4 && strings.Trim(s, "0123456789abcdef") == ""
}

func short(rev string) string {
	if len(rev) >= 40 && hexDigits(rev) {
		return rev[:12]
	}
	return rev
}

// git runs git in dir and returns its standard output, or its first line
// of error output as the error.
func git(dir string, args ...string) (string, error) { return gitpkg.Output(dir, nil, args...) }

func gitLines(dir string, args ...string) ([]string, error) {
	out, err := git(dir, args...)
	if err != nil {
		return nil, err
	}
	return strings.Fields(out), nil
}
