//go:build linux

package rollout_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/rollout"
)

// TestOnce plays a scheduled job: rollout --once run again and again, the
// clock moved between runs, each run doing what can be done then.
func TestOnce(t *testing.T) {
	api := startAPI(t)
	t.Run("runs deliver the patch step by step", func(t *testing.T) { testOnceDelivers(t, newHarness(t, api)) })
	t.Run("a step not healthy by its timeout since its commit fails", func(t *testing.T) { testOnceTimeout(t, newHarness(t, api)) })
	t.Run("a failed step reverted stays failed", func(t *testing.T) { testOnceReverted(t, newHarness(t, api)) })
	t.Run("the fold soaks, then is done", func(t *testing.T) { testOnceFoldSoaks(t, newHarness(t, api)) })
	t.Run("the fold fails after its run and is reverted", func(t *testing.T) { testOnceFoldFails(t, newHarness(t, api)) })
	t.Run("a reverted first step stays failed", func(t *testing.T) { testOnceFirstReverted(t, newHarness(t, api)) })
	t.Run("a pass recorded later at the node before stays failed", func(t *testing.T) { testOnceLatePass(t, newHarness(t, api)) })
}

// once runs rollout --once and returns how it stopped, the steps it made
// and its error.
func (h *harness) once(opts rollout.Options) (string, int, error) {
	h.t.Helper()
	opts.Once = true
	h.events = nil
	res, err := h.rollout(opts)
	if res == nil {
		return "", 0, err
	}
	return res.Stopped, len(res.Steps), err
}

func testOnceDelivers(t *testing.T, h *harness) {
	soak := time.Hour
	h.write(firstPatch, patch)
	type run struct {
		Stopped string
		Steps   int
	}
	var got []run
	step := func(opts rollout.Options, advance time.Duration) {
		opts.Soak = &soak
		stopped, steps, err := h.once(opts)
		if err != nil {
			t.Fatalf("run %d: %v", len(got)+1, err)
		}
		got = append(got, run{stopped, steps})
		h.clock.Step(advance)
	}
	step(rollout.Options{}, 0)                                // commits the first copy; soaks
	step(rollout.Options{}, 2*time.Hour)                      // still soaking: nothing to do
	step(rollout.Options{}, 2*time.Hour)                      // soaked: the second region; soaks
	step(rollout.Options{}, 2*time.Hour)                      // soaked: the next step is production's gate
	step(rollout.Options{Approve: []string{"production"}}, 0) // approved: the fold; soaks
	want := []run{
		{rollout.StoppedPending, 1},
		{rollout.StoppedPending, 0},
		{rollout.StoppedPending, 1},
		{rollout.StoppedGate, 0},
		{rollout.StoppedPending, 1},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("runs (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantSubjects, h.subjects()); d != "" {
		t.Errorf("commits (-want +got):\n%s", d)
	}
	last := h.events[len(h.events)-1]
	if last.Kind != rollout.KindPending || last.Step != "production/us-east1" || !strings.Contains(last.Message, "soaking until") {
		t.Errorf("the last run's last event: %+v, want pending, soaking production/us-east1", last)
	}
	if h.run(h.dir, "rev-parse", "HEAD") != h.run(h.dir, "rev-parse", "origin/main") {
		t.Errorf("the last step is not pushed")
	}
}

func testOnceTimeout(t *testing.T, h *harness) {
	h.write(firstPatch, patch)
	h.health = func(cluster, _ string) string {
		if cluster == "w1" {
			return "Progressing"
		}
		return ""
	}
	timeout := 10 * time.Minute
	stopped, steps, err := h.once(rollout.Options{Timeout: &timeout})
	if err != nil || stopped != rollout.StoppedPending || steps != 1 {
		t.Fatalf("first run: %s, %d steps, %v; want in progress after one step", stopped, steps, err)
	}
	if last := h.events[len(h.events)-1]; !strings.Contains(last.Message, "waiting for the Applications to sync and become healthy: 1 of 1 synced, 0 healthy") {
		t.Errorf("first run's last event: %+v", last)
	}
	h.clock.Step(timeout / 2)
	if stopped, _, err := h.once(rollout.Options{Timeout: &timeout}); err != nil || stopped != rollout.StoppedPending {
		t.Fatalf("run within the timeout: %s, %v; want in progress", stopped, err)
	}
	h.clock.Step(timeout)
	_, _, err = h.once(rollout.Options{Timeout: &timeout})
	var se *rollout.StepError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "timed out after 10m0s") {
		t.Fatalf("run past the timeout: %v, want the step timed out", err)
	}
}

func testOnceReverted(t *testing.T, h *harness) {
	h.write(firstPatch, badPatch)
	h.rejectBad("w2")
	_, _, err := h.once(rollout.Options{Revert: true})
	var se *rollout.StepError
	if !errors.As(err, &se) {
		t.Fatalf("first run: %v, want a failed step", err)
	}
	if got := h.subjects(); len(got) != 3 || !strings.HasPrefix(got[2], `Revert "Promote patch-001`) {
		t.Fatalf("commits: %q, want two steps and the second's revert", got)
	}
	before := h.commits()
	// The next scheduled run neither waits for the revert nor takes the
	// step again.
	_, steps, err := h.once(rollout.Options{Revert: true})
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "the rollout stays stopped until the patch's files change") || steps != 0 {
		t.Fatalf("second run: %d steps, %v; want it failed at the revert", steps, err)
	}
	if h.commits() != before {
		t.Errorf("the second run committed: %q", h.subjects())
	}
}

// toFold rolls the patch out to the gate before production, whose step
// is the fold.
func (h *harness) toFold() {
	h.t.Helper()
	h.write(firstPatch, patch)
	if res, err := h.rollout(rollout.Options{}); err != nil || res.Stopped != rollout.StoppedGate {
		h.t.Fatalf("rollout to the gate: %+v, %v", res, err)
	}
	h.clock.Step(2 * time.Hour) // past any soak of the steps before
}

// onceAll runs rollout --all --once and returns each patch's result.
func (h *harness) onceAll(opts rollout.Options) map[string]rollout.PatchResult {
	h.t.Helper()
	opts.Once = true
	h.events = nil
	res, err := rollout.RunAll(context.Background(), h.env(), opts)
	if err != nil {
		h.t.Fatal(err)
	}
	out := map[string]rollout.PatchResult{}
	for _, r := range res {
		out[r.Patch] = r
	}
	return out
}

const demoPatch = "workload/demo/patch-001"

// The fold removes the patch's files: the runs after it still wait for
// its Applications and soak (in progress), then say it is done.
func testOnceFoldSoaks(t *testing.T, h *harness) {
	h.toFold()
	// The timeout is long: git dates the commits by the real clock, the
	// runs measure from them by the test's, which toFold moved ahead.
	soak, timeout := time.Hour, 10*time.Hour
	stopped, steps, err := h.once(rollout.Options{Approve: []string{"production"}, Soak: &soak, Timeout: &timeout})
	if err != nil || stopped != rollout.StoppedPending || steps != 1 {
		t.Fatalf("the fold's run: %s, %d steps, %v; want in progress after the fold", stopped, steps, err)
	}
	if h.exists("config/workload/demo/integration/patch-001.yaml") {
		t.Fatalf("the patch is not folded")
	}
	h.clock.Step(30 * time.Minute)
	stopped, steps, err = h.once(rollout.Options{Soak: &soak, Timeout: &timeout})
	if err != nil || stopped != rollout.StoppedPending || steps != 0 {
		t.Fatalf("a run during the fold's soak: %s, %d steps, %v; want in progress", stopped, steps, err)
	}
	if last := h.events[len(h.events)-1]; last.Step != "production/us-east1" || !strings.Contains(last.Message, "soaking until") {
		t.Errorf("its last event: %+v, want soaking production/us-east1", last)
	}
	all := h.onceAll(rollout.Options{Soak: &soak, Timeout: &timeout})
	if r, ok := all[demoPatch]; !ok || r.Err != nil || r.Result.Stopped != rollout.StoppedPending {
		t.Errorf("rollout --all --once during the fold's soak: %+v; want %s in progress", all, demoPatch)
	}
	before := h.commits()
	h.clock.Step(time.Hour)
	stopped, steps, err = h.once(rollout.Options{Soak: &soak, Timeout: &timeout})
	if err != nil || stopped != rollout.StoppedDone || steps != 0 {
		t.Fatalf("a run after the fold's soak: %s, %d steps, %v; want done", stopped, steps, err)
	}
	// Its pass recorded, the fold is settled: nothing is left in flight
	// (a runner's strata_rollouts_in_flight and status agree on it).
	all = h.onceAll(rollout.Options{Soak: &soak, Timeout: &timeout})
	if r, ok := all[demoPatch]; ok {
		t.Errorf("rollout --all --once after the fold passed: %s %+v; want it settled, not in flight", demoPatch, r)
	}
	if h.commits() != before {
		t.Errorf("runs after the fold committed: %q", h.subjects())
	}
}

// The fold's Applications degrade after the fold's own run: the next run
// fails the fold and reverts it, which brings the patch's files back.
func testOnceFoldFails(t *testing.T, h *harness) {
	h.toFold()
	timeout := 10 * time.Hour
	degraded := "Progressing"
	h.health = func(cluster, _ string) string {
		if cluster == "w3" {
			return degraded
		}
		return ""
	}
	stopped, _, err := h.once(rollout.Options{Approve: []string{"production"}, Revert: true, Timeout: &timeout})
	if err != nil || stopped != rollout.StoppedPending {
		t.Fatalf("the fold's run: %s, %v; want in progress", stopped, err)
	}
	degraded = "Degraded"
	all := h.onceAll(rollout.Options{Revert: true, Timeout: &timeout})
	var se *rollout.StepError
	if r, ok := all[demoPatch]; !ok || !errors.As(r.Err, &se) || se.Step != "production/us-east1" {
		t.Fatalf("rollout --all --once after the fold degraded: %+v; want %s failed at production/us-east1", all, demoPatch)
	}
	got := h.subjects()
	if !strings.HasPrefix(got[len(got)-1], `Revert "Promote patch-001 of workload/demo to production/us-east1`) {
		t.Errorf("commits: %q, want the fold reverted", got)
	}
	if !h.exists("config/workload/demo/integration/patch-001.yaml") {
		t.Errorf("the revert did not bring the patch's files back")
	}
}

// The revert of the first step removes the patch's file: the next run
// says the step failed, not that the patch is unknown.
func testOnceFirstReverted(t *testing.T, h *harness) {
	h.write(firstPatch, badPatch)
	h.rejectBad("w1")
	var se *rollout.StepError
	if _, _, err := h.once(rollout.Options{Revert: true}); !errors.As(err, &se) {
		t.Fatalf("first run: %v, want a failed step", err)
	}
	if h.exists(firstPatch) {
		t.Fatalf("the revert of the first step left %s", firstPatch)
	}
	before := h.commits()
	_, steps, err := h.once(rollout.Options{Revert: true})
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "reverted by") || steps != 0 {
		t.Fatalf("second run: %d steps, %v; want it failed at the revert", steps, err)
	}
	// The reason is the revert's (its Strata-Failed trailer), not only
	// that there was one.
	if msg := err.Error(); !strings.Contains(msg, "integration/us-east1: Application demo on w1: ") || !strings.Contains(msg, rejected) {
		t.Errorf("second run: %v; want the reason of the revert's trailer", err)
	}
	all := h.onceAll(rollout.Options{Revert: true})
	if r, ok := all[demoPatch]; !ok || !errors.As(r.Err, &se) {
		t.Errorf("rollout --all --once: %+v; want %s failed", all, demoPatch)
	}
	if h.commits() != before {
		t.Errorf("the runs after the revert committed: %q", h.subjects())
	}
}

// rejectBad has Argo CD reject badPatch's rendered output on cluster.
func (h *harness) rejectBad(cluster string) {
	h.failSync = func(c, commit string) string {
		if c == cluster && h.rendersBad(c, commit) {
			return rejected
		}
		return ""
	}
}

// testOnceLatePass: the record's entries are ordered by their time, and
// two runs' times need not follow what they saw: a run whose host's clock
// is ahead (or one that raced a revert, as TestSoak found: CI's --once
// reverted a step while a --watch runner settled the node before it)
// records a pass at the node the revert brought the patch back to after
// the revert. That pass is no verdict on the failed step: the next run
// stays stopped and takes no step.
func testOnceLatePass(t *testing.T, h *harness) {
	h.write(firstPatch, badPatch)
	h.rejectBad("w2")
	var zero time.Duration
	start := h.clock.Now()
	// A run on a host an hour ahead: the first step, its pass recorded.
	h.clock.SetTime(start.Add(time.Hour))
	if stopped, _, err := h.once(rollout.Options{Soak: &zero, Until: "integration/us-east1"}); err != nil || stopped != rollout.StoppedUntil {
		t.Fatalf("first run: %s, %v; want it done at integration/us-east1", stopped, err)
	}
	// A run on time: the step to eu-west1 fails and is reverted.
	h.clock.SetTime(start)
	var se *rollout.StepError
	if _, _, err := h.once(rollout.Options{Soak: &zero, Revert: true}); !errors.As(err, &se) {
		t.Fatalf("second run: %v, want a failed step", err)
	}
	before := h.commits()
	h.clock.SetTime(start.Add(2 * time.Hour))
	_, steps, err := h.once(rollout.Options{Soak: &zero, Revert: true})
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "the rollout stays stopped until the patch's files change") || steps != 0 {
		t.Fatalf("third run: %d steps, %v; want it stopped at the revert", steps, err)
	}
	if h.commits() != before {
		t.Errorf("the third run committed: %q", h.subjects())
	}
}
