package git_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/strata-fleet/strata/internal/git"
)

// recorder runs git and records the commands it ran (their first
// argument); before, when set, runs ahead of a command.
type recorder struct {
	git.Exec
	mu     sync.Mutex
	ran    []string
	before func(args []string)
}

func (r *recorder) Run(ctx context.Context, args ...string) (string, error) {
	r.mu.Lock()
	r.ran = append(r.ran, args[0])
	before := r.before
	r.mu.Unlock()
	if before != nil {
		before(args)
	}
	return r.Exec.Run(ctx, args...)
}

// plumbed reports whether the commit was written with plumbing, not git
// commit.
func (r *recorder) plumbed(t *testing.T) bool {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	p, c := slices.Contains(r.ran, "commit-tree"), slices.Contains(r.ran, "commit")
	if p == c {
		t.Fatalf("ran %q: want either commit-tree or commit", r.ran)
	}
	return p
}

// fixedTime makes two commits of the same tree, parent and message the
// same commit.
var fixedTime = []string{"GIT_AUTHOR_DATE=2026-11-26T12:00:00Z", "GIT_COMMITTER_DATE=2026-11-26T12:00:00Z"}

// commitBoth commits the change files make to a repository of base twice:
// with CommitStaged (r's runner recording) and with git commit --only in
// a second copy; it returns both commits and the first repository. In a
// batch (Repo.Batch), an earlier commit of the batch (config/earlier.yaml,
// both copies) read what git commit would do, after setup.
func commitBoth(t *testing.T, batch bool, setup func(dir string), base, files map[string]string, message string) (got, want string, rec *recorder, r git.Repo, dir string) {
	t.Helper()
	ctx := context.Background()
	for i := range 2 {
		d := t.TempDir()
		ex := git.Exec{Dir: d, Env: append([]string{"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1"}, fixedTime...)}
		rc := &recorder{Exec: ex}
		rr := git.Repo{Git: rc}
		if batch {
			rr = rr.Batch()
		}
		write(t, d, base)
		for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.name", "Jane Doe"}, {"config", "user.email", "jane@example.com"}, {"add", "-A"}, {"commit", "-q", "-m", "first"}} {
			if _, err := ex.Run(ctx, args...); err != nil {
				t.Fatal(err)
			}
		}
		if setup != nil {
			setup(d)
		}
		if batch {
			write(t, d, map[string]string{"config/earlier.yaml": "e\n"})
			var err error
			if i == 0 {
				_, err = rr.Commit(ctx, "earlier step", "config")
			} else if _, err = ex.Run(ctx, "add", "config"); err == nil {
				_, err = ex.Run(ctx, "commit", "-q", "--only", "-m", "earlier step", "--", "config/earlier.yaml")
			}
			if err != nil {
				t.Fatal(err)
			}
			_ = os.Remove(filepath.Join(d, "post-commit-ran"))
		}
		write(t, d, files)
		staged, err := rr.Stage(ctx, "config")
		if err != nil {
			t.Fatal(err)
		}
		rc.ran = nil
		if i == 0 {
			got, err = rr.CommitStaged(ctx, message, staged)
			rec, r, dir = rc, rr, d
		} else {
			_, err = ex.Run(ctx, append([]string{"commit", "-q", "--allow-empty", "--only", "-m", message, "--"}, staged...)...)
			if err == nil {
				want, err = rr.Head(ctx)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if batch && slices.Contains(rec.ran, "config") {
		t.Errorf("the batch's second commit read git config again: ran %q", rec.ran)
	}
	return got, want, rec, r, dir
}

// TestPlumbedCommitIsGitCommits: where git commit would only write the
// commit, CommitStaged writes it with plumbing, and it is the very commit
// git commit --only makes (same id: tree, parent, author and committer
// from git config, message byte for byte after git's cleanup); the index
// and work tree are clean after it, HEAD's branch moved, its reflog kept.
func TestPlumbedCommitIsGitCommits(t *testing.T) {
	base := map[string]string{"config/a.yaml": "a\n", "config/gone.yaml": "g\n", "other/b": "b\n"}
	change := map[string]string{"config/a.yaml": "a2\n", "config/new/n.yaml": "n\n", "config/gone.yaml": ""}
	for name, msg := range map[string]string{
		"subject only":          "Promote patch-001 of workload/demo to prod",
		"body and trailers":     "Promote patch-001\n\n1 of 3 targets' rendered output changed\n\nApproved-by: Jane <j@example.com>\nStrata-Rollout: workload/demo/patch-001",
		"whitespace to clean":   "\n\n  Subject  \t\n\n\n\nbody line   \r\n\n# not a comment with -m\n\n\n",
		"final newline kept":    "Subject\n",
		"unicode and tab":       "Déployer\tpatch ✓",
		"nothing changed, kept": "Empty step",
	} {
		for _, batch := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, batch %v", name, batch), func(t *testing.T) {
				files := change
				if name == "nothing changed, kept" {
					files = nil
				}
				got, want, rec, r, _ := commitBoth(t, batch, nil, base, files, msg)
				if !rec.plumbed(t) {
					t.Fatalf("committed with git commit")
				}
				if got != want {
					a, _ := r.Out(context.Background(), "cat-file", "commit", got)
					t.Fatalf("plumbing made %s, git commit %s:\n%s", got, want, a)
				}
				ctx := context.Background()
				if dirty, err := r.Dirty(ctx); err != nil || len(dirty) > 0 {
					t.Errorf("left uncommitted: %q, %v", dirty, err)
				}
				if head, _ := r.Out(ctx, "rev-parse", "refs/heads/main"); head != got {
					t.Errorf("main at %s, want %s", head, got)
				}
				if rl, _ := r.Out(ctx, "reflog", "-1", "--format=%gs", "main"); !strings.HasPrefix(rl, "commit: ") {
					t.Errorf("main's reflog says %q", rl)
				}
			})
		}
	}
}

// TestCommitFallsBackToGitCommit: a hook git commit runs (in .git/hooks
// or core.hooksPath), commit signing, a message cleanup of one's own or
// something else staged: the commit is git commit's, hook run, signed,
// cleaned, and the other file left staged. A hook that is not executable
// git does not run: plumbing then.
func TestCommitFallsBackToGitCommit(t *testing.T) {
	hook := func(rel, script string) func(dir string) {
		return func(dir string) {
			p := filepath.Join(dir, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	gitConfig := func(kv ...string) func(dir string) {
		return func(dir string) {
			for i := 0; i < len(kv); i += 2 {
				if _, err := (git.Exec{Dir: dir}).Run(context.Background(), "config", kv[i], kv[i+1]); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	trailer := "#!/bin/sh\necho 'Hooked: yes' >>\"$1\"\n"
	// A gpg that signs anything: what git asks of gpg.program.
	fakeGPG := "#!/bin/sh\ncat >/dev/null\nprintf '\\n[GNUPG:] SIG_CREATED \\n' >&2\necho '-----BEGIN PGP SIGNATURE-----'\necho 'fake'\necho '-----END PGP SIGNATURE-----'\n"
	for _, tc := range []struct {
		name  string
		setup func(dir string)
		check string // in git cat-file commit HEAD
		plumb bool
	}{
		{name: "commit-msg hook", setup: hook(".git/hooks/commit-msg", trailer), check: "Hooked: yes"},
		{name: "post-commit hook", setup: hook(".git/hooks/post-commit", "#!/bin/sh\ntouch post-commit-ran\n")},
		{name: "core.hooksPath", setup: func(dir string) {
			hook("githooks/prepare-commit-msg", trailer)(dir)
			gitConfig("core.hooksPath", "githooks")(dir)
		}, check: "Hooked: yes"},
		{name: "a hook elsewhere than core.hooksPath", setup: func(dir string) {
			hook(".git/hooks/commit-msg", trailer)(dir)
			gitConfig("core.hooksPath", "githooks")(dir)
		}, plumb: true},
		{name: "a hook not executable", setup: func(dir string) {
			hook(".git/hooks/commit-msg", trailer)(dir)
			if err := os.Chmod(filepath.Join(dir, ".git/hooks/commit-msg"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, plumb: true},
		{name: "commit.gpgSign", setup: func(dir string) {
			hook("gpg.sh", fakeGPG)(dir)
			gitConfig("commit.gpgSign", "true", "gpg.program", filepath.Join(dir, "gpg.sh"))(dir)
		}, check: "gpgsig -----BEGIN PGP SIGNATURE-----"},
		{name: "commit.gpgSign off", setup: gitConfig("commit.gpgSign", "false"), plumb: true},
		{name: "commit.cleanup", setup: gitConfig("commit.cleanup", "verbatim"), check: "\n\nstep  \n"},
	} {
		for _, batch := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, batch %v", tc.name, batch), func(t *testing.T) {
				ctx := context.Background()
				_, _, rec, r, dir := commitBoth(t, batch, tc.setup, map[string]string{"config/a.yaml": "a\n"}, map[string]string{"config/a.yaml": "a2\n"}, "step  \n")
				if got := rec.plumbed(t); got != tc.plumb {
					t.Fatalf("plumbed: %v, want %v", got, tc.plumb)
				}
				body, _ := r.Git.Run(ctx, "cat-file", "commit", "HEAD")
				if !strings.Contains(body, tc.check) {
					t.Errorf("HEAD lacks %q:\n%s", tc.check, body)
				}
				if tc.name == "post-commit hook" {
					if _, err := os.Stat(filepath.Join(dir, "post-commit-ran")); err != nil {
						t.Errorf("post-commit did not run: %v", err)
					}
				}
				if files, _ := r.Out(ctx, "show", "--name-only", "--format=", "HEAD"); files != "config/a.yaml" {
					t.Errorf("committed %q", files)
				}
			})
		}
	}
	t.Run("something else staged", func(t *testing.T) {
		ctx := context.Background()
		r, dir := newRepo(t, map[string]string{"config/a.yaml": "a\n", "staged.txt": "s\n"})
		rec := &recorder{Exec: r.Git.(git.Exec)}
		r.Git = rec
		write(t, dir, map[string]string{"config/a.yaml": "a2\n", "staged.txt": "s2\n"})
		if _, err := r.Out(ctx, "add", "staged.txt"); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Commit(ctx, "step", "config"); err != nil {
			t.Fatal(err)
		}
		if rec.plumbed(t) {
			t.Errorf("plumbing committed with another file staged")
		}
		if dirty, _ := r.Dirty(ctx); !slices.Equal(dirty, []string{"M  staged.txt"}) {
			t.Errorf("left %q, want staged.txt staged", dirty)
		}
	})
}

// TestPlumbedCommitRefusesAMovedHead: HEAD moved between its read and the
// update (another commit meanwhile): the update is refused, HEAD stays
// the other commit, and the step's files are no longer staged (the index
// as before the step), the work tree keeping them.
func TestPlumbedCommitRefusesAMovedHead(t *testing.T) {
	ctx := context.Background()
	r, dir := newRepo(t, map[string]string{"config/a.yaml": "a\n"})
	ex := r.Git.(git.Exec)
	rec := &recorder{Exec: ex}
	r.Git = rec
	rec.before = func(args []string) {
		if args[0] != "update-ref" {
			return
		}
		// Another commit on HEAD, of HEAD's tree (not the index's).
		c, err := ex.Run(ctx, "commit-tree", "HEAD^{tree}", "-p", "HEAD", "-m", "someone else's")
		if err == nil {
			_, err = ex.Run(ctx, "update-ref", "HEAD", strings.TrimSpace(c))
		}
		if err != nil {
			t.Error(err)
		}
	}
	write(t, dir, map[string]string{"config/a.yaml": "a2\n"})
	_, err := r.Commit(ctx, "step", "config")
	if err == nil || !strings.Contains(err.Error(), "update-ref") {
		t.Fatalf("err = %v, want update-ref's refusal", err)
	}
	if msg, _ := r.Out(ctx, "log", "-1", "--format=%s"); msg != "someone else's" {
		t.Errorf("HEAD is %q", msg)
	}
	if dirty, _ := r.Dirty(ctx); !slices.Equal(dirty, []string{" M config/a.yaml"}) {
		t.Errorf("after the refusal: %q, want config/a.yaml changed, unstaged", dirty)
	}
}
