//go:build linux

package rollout_test

import (
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
	h.failSync = func(cluster, commit string) string {
		if cluster == "w2" && h.rendersBad(cluster, commit) {
			return rejected
		}
		return ""
	}
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
