package runner

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/rollout"
	"github.com/strata-fleet/strata/internal/rollout/writer"
	"github.com/strata-fleet/strata/internal/testing/testgit"
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

	env := rollout.Env{Dir: clone, Git: git.Exec{Dir: clone}}
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
				got, err := writer.FetchBranch(context.Background(), env.Dir, env.Git, "origin", "main")
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

// TestSyncAfterForcePush: main force-pushed to a history without the
// runner's HEAD; the runner's error (its /healthz 503) names the way out,
// where it said only that it could not fast-forward, every interval.
func TestSyncAfterForcePush(t *testing.T) {
	clone, other := t.TempDir(), t.TempDir()
	bare := testgit.Remote(t, clone)
	testgit.Run(t, "", "clone", "-q", bare, other)
	testgit.Run(t, other, "commit", "-q", "--amend", "--allow-empty", "-m", "rewritten")
	testgit.Run(t, other, "push", "-q", "--force", "origin", "main")

	r := &runner{o: Options{Env: rollout.Env{Dir: clone, Git: git.Exec{Dir: clone, Env: testgit.Env}}}}
	err := r.sync(context.Background())
	if err == nil {
		t.Fatal("the work tree was brought up to a rewritten main")
	}
	for _, want := range []string{"origin/main was rewritten (a force push?)", "is not in origin/main's history",
		"the runner never rewrites history itself", "git -C " + clone + " reset --hard origin/main"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q\nwant %q", err, want)
		}
	}

	// A remote that only moved on is no rewrite: no hint.
	testgit.Run(t, clone, "reset", "-q", "--hard", "origin/main")
	testgit.Run(t, other, "commit", "-q", "--allow-empty", "-m", "next")
	testgit.Run(t, other, "push", "-q", "origin", "main")
	if err := r.sync(context.Background()); err != nil {
		t.Errorf("after the reset: %v", err)
	}
}
