package e2e

import (
	"bytes"
	"fmt"

	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/testing/testgit"
)

// GitServer serves bare repositories over HTTP on loopback with
// `git http-backend` (smart HTTP, read-only), as a Git host would.
type GitServer struct {
	// Root is the directory holding the bare repositories.
	Root string
	// URL is the server's address, http://127.0.0.1:<port>.
	URL string
}

// StartGitServer serves the bare repositories under a new directory until
// the test ends.
func StartGitServer(t testing.TB, git string) *GitServer {
	t.Helper()
	root := filepath.Join(t.TempDir(), "git")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	h := &cgi.Handler{
		Path: git,
		Args: []string{"http-backend"},
		Dir:  root,
		Env: []string{
			"GIT_PROJECT_ROOT=" + root,
			"GIT_HTTP_EXPORT_ALL=1",
		},
		Stderr: os.Stderr,
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &GitServer{Root: root, URL: srv.URL}
}

// Repo is a work tree whose commits are pushed to a bare repository the
// GitServer serves.
type Repo struct {
	// Dir is the work tree.
	Dir string
	// URL is where Argo CD pulls the repository from.
	URL string
	t   testing.TB
	git string
}

// NewRepo creates the bare repository name.git on the server and a work tree
// for it on branch main, with nothing committed.
func (s *GitServer) NewRepo(t testing.TB, git, name string) *Repo {
	t.Helper()
	bare := filepath.Join(s.Root, name+".git")
	dir := filepath.Join(t.TempDir(), name)
	r := &Repo{Dir: dir, URL: s.URL + "/" + name + ".git", t: t, git: git}
	r.run(s.Root, "init", "-q", "--bare", "-b", "main", bare)
	r.run(s.Root, "init", "-q", "-b", "main", dir)
	r.Git("remote", "add", "origin", bare)
	return r
}

// Git runs git in the work tree and returns its trimmed output; an error
// fails the test.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	return r.run(r.Dir, args...)
}

func (r *Repo) run(dir string, args ...string) string {
	r.t.Helper()
	cmd := exec.Command(r.git, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), testgit.Env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// Commit commits everything in the work tree with message, pushes main, and
// returns the commit's hash.
func (r *Repo) Commit(message string) string {
	r.t.Helper()
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", message)
	r.Git("push", "-q", "origin", "main")
	sha := r.Git("rev-parse", "HEAD")
	r.t.Logf("committed %.12s %s", sha, message)
	return sha
}

// Changed returns the paths under dir that differ between the commits from
// and to.
func (r *Repo) Changed(from, to, dir string) []string {
	r.t.Helper()
	out := r.Git("diff", "--name-only", from, to, "--", dir)
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}

// WriteFile writes a file of the work tree, creating its directories.
func (r *Repo) WriteFile(rel, content string) {
	r.t.Helper()
	p := filepath.Join(r.Dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// ReadFile reads a file of the work tree.
func (r *Repo) ReadFile(rel string) string {
	r.t.Helper()
	data, err := os.ReadFile(filepath.Join(r.Dir, filepath.FromSlash(rel)))
	if err != nil {
		r.t.Fatal(err)
	}
	return string(data)
}

// ReplaceInFile replaces old (which must occur) by new in a file of the work
// tree.
func (r *Repo) ReplaceInFile(rel, old, repl string) {
	r.t.Helper()
	s := r.ReadFile(rel)
	if !strings.Contains(s, old) {
		r.t.Fatalf("%s does not contain %q", rel, old)
	}
	r.WriteFile(rel, strings.Replace(s, old, repl, 1))
}

// Files lists the files of the work tree under dir, as slash paths from
// the work tree.
func (r *Repo) Files(dir string) []string {
	r.t.Helper()
	var out []string
	root := filepath.Join(r.Dir, filepath.FromSlash(dir))
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(r.Dir, path)
		out = append(out, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		r.t.Fatal(err)
	}
	return out
}

// Remove removes a file of the work tree.
func (r *Repo) Remove(rel string) {
	r.t.Helper()
	if err := os.Remove(filepath.Join(r.Dir, filepath.FromSlash(rel))); err != nil {
		r.t.Fatal(err)
	}
}

func (r *Repo) String() string { return fmt.Sprintf("%s (%s)", r.URL, r.Dir) }
