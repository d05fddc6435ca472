//go:build linux

package rollout_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/output"
	"github.com/strata-fleet/strata/internal/rollout"
	"github.com/strata-fleet/strata/internal/rollout/writer"
)

// TestWriter runs RunAll with two patches whose next steps are ready at
// once: its writer makes both in one hold of the repository lock, each
// its own commit, and pushes them in one push.
func TestWriter(t *testing.T) {
	api := startAPI(t)
	t.Run("steps ready at once: one push, one commit each", func(t *testing.T) { testBatch(t, newHarness(t, api), false, false) })
	t.Run("a refused push replays them all, others' commits kept", func(t *testing.T) { testBatch(t, newHarness(t, api), true, false) })
	// A hold that has run Env.BatchFor after a step pushes it; the other
	// step is made in the next hold, pushed on its own.
	t.Run("a hold past its time pushes what it made", func(t *testing.T) { testBatch(t, newHarness(t, api), false, true) })
}

func testBatch(t *testing.T, h *harness, moved, bounded bool) {
	h.write(firstPatch, patch)
	// patch-002 adds an Application: what its targets render changes
	// (the expectation advanced after the push must say so).
	h.write("config/workload/demo/integration/us-east1/patch-002.yaml", "applications:\n  demo:\n    source:\n      helm:\n        valuesObject:\n          color: blue\n"+
		"  demo-canary:\n    project: default\n    source:\n      repoURL: https://charts.example.com\n      chart: demo\n      targetRevision: 1.0.0\n"+
		"    destination:\n      server: https://kubernetes.default.svc\n      namespace: demo-canary\n")
	if _, err := output.Run(output.Options{Root: h.dir, FS: os.DirFS(h.dir)}); err != nil {
		t.Fatal(err)
	}
	h.run(h.dir, "add", "-A")
	h.run(h.dir, "commit", "-q", "-m", "two patches")
	h.run(h.dir, "push", "-q")
	h.syncAll()
	pushes := 0
	h.beforePush = func(n int) {
		pushes = n
		if moved && n == 1 {
			h.otherPush("docs/note.md", "a note\n", "docs: a note")
		}
	}

	// The writer's hold waits until both steps are asked for, so that the
	// test does not depend on which rollout gets there first.
	var mu sync.Mutex
	queued := map[string]bool{}
	both := make(chan struct{})
	defer rollout.SetQueuedHook(func(p string) {
		mu.Lock()
		defer mu.Unlock()
		queued[p] = true
		if len(queued) == 2 {
			close(both)
		}
	})()
	env := h.env()
	stepped, holding, looks, catchUps, configs := false, false, 0, 0, 0
	h.onGit = func(args []string) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case args[0] == "status" && holding:
			looks++ // at the uncommitted files, in a hold
		case args[0] == "status":
			catchUps++ // the same, by the rollouts' catch-ups
		}
		if args[0] == "config" && holding {
			configs++ // what git commit would do beside the commit
		}
		if bounded && holding && (args[0] == "commit-tree" || args[0] == "commit") && !stepped {
			stepped = true // the first step's commit takes the hold's time
			h.clock.Step(writer.DefaultBatchFor)
		}
	}
	takes := 0
	lock := env.Lock
	env.Lock = func(ctx context.Context) (func(), error) {
		mu.Lock()
		takes++
		n := len(queued)
		mu.Unlock()
		if n == 1 {
			select {
			case <-both:
			case <-time.After(time.Minute):
				return nil, errors.New("the second step was never asked for")
			}
		}
		release, err := lock(ctx)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		holding = true
		mu.Unlock()
		return func() {
			mu.Lock()
			holding = false
			mu.Unlock()
			release()
		}, nil
	}
	// After each push the expectation is advanced by the hold's steps,
	// not read whole again, but after a replay.
	advanced, undo := rollout.CompareAdvanced(h.dir, t.Errorf)
	defer undo()
	reads := rollout.ExpectationReads()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	results, err := rollout.RunAll(ctx, env, rollout.Options{Approver: "Jane Doe <jane@example.com>"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, pr := range results {
		if pr.Err != nil {
			t.Fatalf("%s: %v", pr.Patch, pr.Err)
		}
		got = append(got, fmt.Sprintf("%s %s %d", pr.Patch, pr.Result.Stopped, len(pr.Result.Steps)))
	}
	if d := cmp.Diff([]string{"workload/demo/patch-001 gate 1", "workload/demo/patch-002 gate 1"}, got); d != "" {
		t.Errorf("results (-want +got):\n%s", d)
	}
	wantPushes, wantTakes := 1, 1
	switch {
	case moved:
		wantPushes = 2 // refused, then the replay's
	case bounded:
		wantPushes, wantTakes = 2, 2
	}
	// One take of the lock a hold: the catch-ups found nothing to do and
	// the reads (plans, wait sets) took none.
	if pushes != wantPushes || takes != wantTakes {
		t.Errorf("%d pushes and %d takes of the repository lock, want %d and %d", pushes, takes, wantPushes, wantTakes)
	}
	// One whole read at the start (the settles), one more after a replay.
	wantAdvanced, wantReads := wantTakes, int64(1)
	if moved {
		wantAdvanced, wantReads = 0, 2
	}
	if advanced() != wantAdvanced || rollout.ExpectationReads()-reads != wantReads {
		t.Errorf("the expectation advanced %d times and read whole %d times, want %d and %d",
			advanced(), rollout.ExpectationReads()-reads, wantAdvanced, wantReads)
	}
	// The rollouts' catch-ups, at one HEAD, look at the uncommitted files
	// once, not once each.
	if catchUps != 1 {
		t.Errorf("git status ran %d times outside the holds, want 1", catchUps)
	}
	// One look at the uncommitted files a hold, not one a step.
	if !moved && looks != wantTakes {
		t.Errorf("git status ran %d times in %d holds", looks, wantTakes)
	}
	// One read of git's commit settings a hold, a replay's commits too.
	if configs != wantTakes {
		t.Errorf("git config ran %d times in %d holds", configs, wantTakes)
	}

	// Each step its own commit, in patch order, on the remote.
	want := []string{
		"Promote patch-001 of workload/demo to integration/eu-west1, coalesce it at integration: 1 of 3 targets' rendered output changed\nStrata-Rollout: workload/demo/patch-001",
		"Promote patch-002 of workload/demo to integration/eu-west1, coalesce it at integration: 1 of 3 targets' rendered output changed\nStrata-Rollout: workload/demo/patch-002",
		"two patches\n",
	}
	if moved {
		want[2] = "docs: a note\n"
	}
	var log []string
	for c := range strings.SplitSeq(h.run(h.bare, "log", "-3", "--reverse", "--format=%H", "main"), "\n") {
		subject := h.run(h.bare, "log", "-1", "--format=%s", c)
		trailer := h.run(h.bare, "log", "-1", "--format=%(trailers:key=Strata-Rollout)", c)
		log = append(log, subject+"\n"+trailer)
	}
	want = append(want[2:], want[:2]...)
	if d := cmp.Diff(want, log); d != "" {
		t.Errorf("the remote's last commits (-want +got):\n%s", d)
	}
	replayed := map[string]bool{}
	for _, e := range h.events {
		if e.Kind == rollout.KindReplayed {
			replayed[e.Patch] = true
		}
	}
	if moved != replayed["workload/demo/patch-001"] || moved != replayed["workload/demo/patch-002"] {
		t.Errorf("replayed: %v, want both %v", replayed, moved)
	}
	if moved || bounded {
		return
	}
	// Run again, both patches settle their pushed step before the gate:
	// they share one read of what the rendered output expects at HEAD.
	reads = rollout.ExpectationReads()
	if _, err := rollout.RunAll(ctx, env, rollout.Options{Approver: "Jane Doe <jane@example.com>"}); err != nil {
		t.Fatal(err)
	}
	if n := rollout.ExpectationReads() - reads; n != 1 {
		t.Errorf("two rollouts settling at one HEAD read what it expects %d times, want 1", n)
	}
}
