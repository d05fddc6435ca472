package rollout

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/strata-fleet/strata/internal/git"
)

// The rollouts of one process fetch at once (RunAll): each must read the
// commit its own fetch brought, never a FETCH_HEAD another fetch is
// rewriting, nor fail on the remote-tracking branch's lock.
func TestConcurrentFetches(t *testing.T) {
	dir := t.TempDir()
	remote, clone := filepath.Join(dir, "remote.git"), filepath.Join(dir, "clone")
	sh := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(cmd.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	sh(dir, "init", "-q", "--bare", "-b", "main", remote)
	sh(dir, "clone", "-q", remote, clone)
	sh(clone, "commit", "-q", "--allow-empty", "-m", "first")
	sh(clone, "push", "-q", "origin", "HEAD:refs/heads/main")
	tip := sh(clone, "rev-parse", "HEAD")

	r := &repo{git: git.Repo{Git: git.Exec{Dir: clone}}, dir: clone, remote: "origin", branch: "main"}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 8 {
				got, err := r.fetch(context.Background())
				if err != nil {
					errs <- err.Error()
					return
				}
				if got != tip {
					errs <- "fetched " + got + ", want " + tip
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
