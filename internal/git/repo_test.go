package git_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/testing/testgit"
)

// newRepo is a repository with a first commit of files.
func newRepo(t *testing.T, files map[string]string) (git.Repo, string) {
	t.Helper()
	dir := t.TempDir()
	r := git.Repo{Git: git.Exec{Dir: dir, Env: testgit.Env}}
	write(t, dir, files)
	ctx := context.Background()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "first"}} {
		if _, err := r.Out(ctx, args...); err != nil {
			t.Fatal(err)
		}
	}
	return r, dir
}

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, name)
		if data == "" {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCommitOnlyPaths: a commit of some paths takes their additions,
// changes, removals and moves (a coalesced patch), and leaves what else is staged or changed alone.
func TestCommitOnlyPaths(t *testing.T) {
	ctx := context.Background()
	r, dir := newRepo(t, map[string]string{"config/a.yaml": "a\n", "config/gone.yaml": "g\n", "config/n1/moved.yaml": "same content, moved\n", "notes.txt": "n\n", "staged.txt": "s\n"})
	write(t, dir, map[string]string{"config/a.yaml": "a2\n", "config/new.yaml": "new\n", "config/gone.yaml": "", "config/n1/moved.yaml": "", "config/moved.yaml": "same content, moved\n", "notes.txt": "mine\n", "staged.txt": "s2\n"})
	if _, err := r.Out(ctx, "add", "staged.txt"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Commit(ctx, "step", "config"); err != nil {
		t.Fatal(err)
	}
	files, err := r.Out(ctx, "show", "--no-renames", "--name-status", "--format=", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if want := "M\tconfig/a.yaml\nD\tconfig/gone.yaml\nA\tconfig/moved.yaml\nD\tconfig/n1/moved.yaml\nA\tconfig/new.yaml"; files != want {
		t.Errorf("committed:\n%s\nwant:\n%s", files, want)
	}
	dirty, err := r.Dirty(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{" M notes.txt", "M  staged.txt"}; !slices.Equal(dirty, want) {
		t.Errorf("left uncommitted: %q, want %q", dirty, want)
	}
}

// TestCommitNothingChanged: a step that changes no file is an empty
// commit, not a commit of what someone staged.
func TestCommitNothingChanged(t *testing.T) {
	ctx := context.Background()
	r, dir := newRepo(t, map[string]string{"config/a.yaml": "a\n", "staged.txt": "s\n"})
	write(t, dir, map[string]string{"staged.txt": "s2\n"})
	if _, err := r.Out(ctx, "add", "staged.txt"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Commit(ctx, "empty step", "config"); err != nil {
		t.Fatal(err)
	}
	if files, _ := r.Out(ctx, "show", "--name-only", "--format=", "HEAD"); files != "" {
		t.Errorf("the empty step committed %q", files)
	}
	if msg, _ := r.Out(ctx, "log", "-1", "--format=%s"); msg != "empty step" {
		t.Errorf("HEAD is %q", msg)
	}
}

// TestSwitch: a new branch is created at HEAD, an existing one switched
// to, uncommitted changes carried along; a bad name is refused.
func TestSwitch(t *testing.T) {
	ctx := context.Background()
	r, dir := newRepo(t, map[string]string{"a": "a\n"})
	write(t, dir, map[string]string{"a": "mine\n"})
	created, err := r.Switch(ctx, "promote/step-1")
	if err != nil || !created {
		t.Fatalf("Switch = %v, %v; want a new branch", created, err)
	}
	if b, _ := r.Branch(ctx); b != "promote/step-1" {
		t.Errorf("on %q", b)
	}
	if created, err = r.Switch(ctx, "main"); err != nil || created {
		t.Fatalf("Switch main = %v, %v; want the existing branch", created, err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a")); string(data) != "mine\n" {
		t.Errorf("uncommitted change lost: %q", data)
	}
	if _, err := r.Switch(ctx, "bad..name"); err == nil || !strings.Contains(err.Error(), "not a valid branch name") {
		t.Errorf("bad name: %v", err)
	}
}

func TestDirtyPath(t *testing.T) {
	for line, want := range map[string]string{" M config/a.yaml": "config/a.yaml", "?? x y": "x y", "R  a -> b": "b", `?? "q\"x"`: `q\"x`} {
		if got := git.DirtyPath(line); got != want {
			t.Errorf("DirtyPath(%q) = %q, want %q", line, got, want)
		}
	}
}

func TestError(t *testing.T) {
	_, err := git.Exec{Dir: t.TempDir(), Env: testgit.Env}.Run(context.Background(), "rev-parse", "HEAD")
	var ge *git.Error
	if err == nil || !errors.As(err, &ge) || !strings.HasPrefix(err.Error(), "git rev-parse HEAD: ") {
		t.Fatalf("err = %v", err)
	}
}

// TestBelowTheTop: run in a directory below the top of the work tree,
// Dirty gives paths relative to it and Commit commits its paths.
func TestBelowTheTop(t *testing.T) {
	ctx := context.Background()
	_, top := newRepo(t, map[string]string{"fleet/config/a.yaml": "a\n", "other/b": "b\n"})
	r := git.Repo{Git: git.Exec{Dir: filepath.Join(top, "fleet"), Env: testgit.Env}}
	write(t, top, map[string]string{"fleet/config/a.yaml": "a2\n", "fleet/config/new.yaml": "n\n", "other/b": "b2\n"})
	dirty, err := r.Dirty(ctx, "config")
	if want := []string{" M config/a.yaml", "?? config/new.yaml"}; err != nil || !slices.Equal(dirty, want) {
		t.Fatalf("Dirty = %q, %v; want %q", dirty, err, want)
	}
	if _, err := r.Commit(ctx, "step", "config"); err != nil {
		t.Fatal(err)
	}
	if files, _ := r.Out(ctx, "show", "--name-only", "--format=", "HEAD"); files != "fleet/config/a.yaml\nfleet/config/new.yaml" {
		t.Errorf("committed %q", files)
	}
}

func TestSubcommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"push", "-q", "origin", "main"}, "push"},
		{[]string{"-c", "core.trustctime=false", "add", "-A"}, "add"},
		{[]string{"-C", "/repo", "--no-pager", "-c", "a=b", "fetch", "origin"}, "fetch"},
		{[]string{"--version"}, ""},
		{[]string{"-c"}, ""},
		{nil, ""},
	} {
		if got := git.Subcommand(tc.args); got != tc.want {
			t.Errorf("Subcommand(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}
