package git

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// commitHooks are the hooks git commit runs (githooks(5)); a repository
// with one of them, executable, is committed with git commit.
var commitHooks = []string{"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit"}

// plumb commits what the index holds, the files staged and nothing else,
// as the commit git commit -m message would make: git write-tree (cheap:
// the index's cache-tree keeps the trees of the directories not staged),
// git commit-tree on HEAD and git update-ref HEAD, refused when HEAD moved
// since it was read. git commit --only instead refreshes every entry of
// the index and writes two copies of it, a cost that grows with the
// repository, not the step (BENCHMARKS.md, speed audit). ok is false, and
// nothing is done, when git commit would do more or other: a hook it
// runs, signing (commit.gpgSign: commit-tree ignores it), a message
// cleanup other than the default, no commit yet, or something staged
// beyond staged. A failure after that leaves HEAD as it was and the
// staged files unstaged again, as before the step was staged.
func (r Repo) plumb(ctx context.Context, message string, staged []string) (commit string, ok bool, err error) {
	msg, clean := cleanMessage(message)
	if !clean {
		return "", false, nil
	}
	head, plain, err := r.checks.read(ctx, r)
	if err != nil || !plain || head == "" {
		return "", false, err // head "": no commit yet (git commit makes the first), or no work tree
	}
	all, err := r.Out(ctx, "diff-index", "--cached", "--no-renames", "--name-only", "-z", "HEAD")
	if err != nil {
		return "", false, err
	}
	// Stage's files are the index's changes under its paths: as many
	// changes in all means nothing else is staged.
	if n := strings.Count(all, "\x00"); n != len(staged) {
		return "", false, nil
	}
	undo := func(err error) (string, bool, error) {
		if len(staged) > 0 {
			_, _ = r.Out(ctx, append([]string{"reset", "-q", "--"}, staged...)...)
		}
		return "", true, err
	}
	tree, err := r.Out(ctx, "write-tree")
	if err != nil {
		return undo(err)
	}
	if commit, err = r.Out(ctx, "commit-tree", tree, "-p", head, "-m", msg); err != nil {
		return undo(err)
	}
	subject, _, _ := strings.Cut(msg, "\n")
	if _, err := r.Out(ctx, "update-ref", "-m", "commit: "+subject, "HEAD", commit, head); err != nil {
		return undo(err)
	}
	return commit, true, nil
}

// Batch returns r for a batch of commits made in a short while (a
// rollout's hold of the repository lock): what git commit would do
// beside writing the commit (plain: hooks, commit.gpgSign,
// commit.cleanup) is read at its first commit, not again at each. A
// hook or setting added during the batch applies from the next one.
func (r Repo) Batch() Repo {
	r.checks = &checks{}
	return r
}

// checks is what Batch keeps of plain's answer.
type checks struct {
	mu    sync.Mutex
	known bool
	plain bool
}

// read returns HEAD's commit ("" when there is none, or no work tree)
// and whether git commit here would only write the commit (plain), read
// with HEAD in one git rev-parse; a Batch reads plain once.
func (c *checks) read(ctx context.Context, r Repo) (head string, plain bool, err error) {
	if c != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.known {
			if !c.plain {
				return "", false, nil
			}
			head, err := r.Out(ctx, "rev-parse", "--verify", "-q", "HEAD")
			if err != nil {
				return "", false, nil
			}
			return head, c.plain, nil
		}
	}
	out, err := r.Out(ctx, "rev-parse", "--show-toplevel", "--git-path", "hooks", "--verify", "-q", "HEAD")
	if err != nil {
		return "", false, nil
	}
	f := strings.Split(out, "\n")
	if len(f) != 3 {
		return "", false, nil
	}
	top, hooks, head := f[0], f[1], f[2]
	if !filepath.IsAbs(hooks) {
		// Relative: the default's from here (a subdirectory's is
		// absolute), core.hooksPath's from the top of the work tree,
		// where hooks run; both the top when they differ.
		hooks = filepath.Join(top, hooks)
	}
	if plain, err = r.plain(ctx, hooks); err != nil {
		return "", false, err
	}
	if c != nil {
		c.known, c.plain = true, plain
	}
	return head, plain, nil
}

// plain reports whether git commit here would only write the commit: no
// hook of commitHooks in hooks (the absolute directory git rev-parse
// --git-path hooks names, which follows core.hooksPath), commit.gpgSign off, commit.cleanup unset or
// the default.
func (r Repo) plain(ctx context.Context, hooks string) (bool, error) {
	for _, h := range commitHooks {
		if fi, err := os.Stat(filepath.Join(hooks, h)); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return false, nil
		}
	}
	out, err := r.Out(ctx, "config", "-z", "--get-regexp", `^commit\.(gpgsign|cleanup)$`)
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		return true, nil // neither is set
	}
	if err != nil {
		return false, err
	}
	for kv := range strings.SplitSeq(strings.TrimSuffix(out, "\x00"), "\x00") {
		key, val, _ := strings.Cut(kv, "\n")
		switch key {
		case "commit.gpgsign":
			if on, err := strconv.ParseBool(val); err != nil || on {
				return false, nil // on, or a value git reads its own way (yes, on)
			}
		case "commit.cleanup":
			if val != "default" {
				return false, nil
			}
		}
	}
	return true, nil
}

// cleanMessage is message as git commit -m keeps it (its default
// cleanup, "whitespace": trailing space of each line, leading and
// trailing empty lines dropped, runs of empty lines made one, a final
// newline), without it (commit-tree -m adds that). clean is false for a
// message that cleanup might treat otherwise (other control characters
// than tab and newline) or empties, which git commit then refuses.
func cleanMessage(message string) (msg string, clean bool) {
	var b strings.Builder
	empties := 0
	for line := range strings.SplitSeq(message, "\n") {
		if strings.ContainsFunc(line, func(c rune) bool { return c < ' ' && c != '\t' && c != '\r' || c == 0x7f }) {
			return "", false
		}
		line = strings.TrimRight(line, " \t\r")
		if line == "" {
			empties++
			continue
		}
		if empties > 0 && b.Len() > 0 {
			b.WriteString("\n")
		}
		empties = 0
		b.WriteString(line)
		b.WriteString("\n")
	}
	if b.Len() == 0 {
		return "", false
	}
	return strings.TrimSuffix(b.String(), "\n"), true
}
