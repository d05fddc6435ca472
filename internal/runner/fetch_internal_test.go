package runner

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/strata-fleet/strata/internal/rollout"
)

// TestSyncFetchesWithTheRollouts: the runner's fetch (sync, every tick)
// and its rollouts' (rollout.FetchBranch) run in one process at once:
// each rollout must read the commit its own fetch brought, never a
// FETCH_HEAD the runner's fetch is rewriting, and no fetch may fail on
// the remote-tracking branch's lock (rollout's TestConcurrentFetches is
// the rollouts' side alone).
func TestSyncFetchesWithTheRollouts(t *testing.T) {
	dir := t.TempDir()
	remote, clone := filepath.Join(dir, "remote.git"), filepath.Join(dir, "clone")
	sh := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(cmd.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
			"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	sh(dir, "init", "-q", "--bare", "-b", "main", remote)
	sh(dir, "clone", "-q", remote, clone)
	sh(clone, "commit", "-q", "--allow-empty", "-m", "first")
	sh(clone, "push", "-q", "-u", "origin", "HEAD:refs/heads/main")
	tip := sh(clone, "rev-parse", "HEAD")

	env := rollout.Env{Dir: clone, Git: rollout.ExecGit{Dir: clone}}
	r := &runner{o: Options{Env: env}}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for i := range 8 {
		wg.Go(func() {
			for range 8 {
				if i%2 == 0 {
					if err := r.sync(context.Background()); err != nil {
						errs <- "the runner: " + err.Error()
						return
					}
					continue
				}
				got, err := rollout.FetchBranch(context.Background(), env, "origin", "main")
				if err != nil {
					errs <- "a rollout: " + err.Error()
					return
				}
				if got != tip {
					errs <- "a rollout fetched " + got + ", want " + tip
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
