package runner

import (
	"context"
	"sync"
	"testing"

	"github.com/strata-fleet/strata/internal/rollout"
	"github.com/strata-fleet/strata/internal/testgit"
)

// TestSyncFetchesWithTheRollouts: the runner's fetch (sync, every tick)
// and its rollouts' (rollout.FetchBranch) run in one process at once:
// each rollout must read the commit its own fetch brought, never a
// FETCH_HEAD the runner's fetch is rewriting, and no fetch may fail on
// the remote-tracking branch's lock (rollout's TestConcurrentFetches is
// the rollouts' side alone).
func TestSyncFetchesWithTheRollouts(t *testing.T) {
	clone := t.TempDir()
	testgit.Remote(t, clone)
	tip := testgit.Run(t, clone, "rev-parse", "HEAD")

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
