//go:build linux

package rollout_test

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/output"
	"github.com/strata-fleet/strata/internal/rollout"
	"github.com/strata-fleet/strata/internal/values"
)

// TestVerdicts holds the rollout to live's verdict (docs/verdicts.md): a
// step whose PostSync hook failed fails, though Argo CD says Synced and
// Healthy; a step with nothing to wait on stops the rollout before it
// changes anything, unless its node declares watch: false.
func TestVerdicts(t *testing.T) {
	api := startAPI(t)
	t.Run("a failed PostSync hook fails the step", func(t *testing.T) { testHookFails(t, newHarness(t, api), false) })
	t.Run("a failed PostSync hook Argo CD retries fails the step at once", func(t *testing.T) { testHookFails(t, newHarness(t, api), true) })
	t.Run("a step with nothing to wait on stops before committing", func(t *testing.T) { testNothingToWatch(t, newHarness(t, api)) })
}

// failHook makes an Application's status what Argo CD writes when a
// PostSync hook fails: the operation Failed, the hook's result Failed with
// its message, sync and health as they were (Synced, Healthy). retried:
// what Argo CD v3.5 writes between the attempts of a sync it retries (an
// automated sync, 5 times by default): the operation Running again, its
// retryCount and the time of the next attempt in its message, the failed
// attempt's result kept until the next attempt starts.
func failHook(st map[string]any, msg string, retried bool) {
	op := st["operationState"].(map[string]any)
	op["phase"], op["message"] = "Failed", "one or more synchronization tasks completed unsuccessfully"
	if retried {
		op["phase"], op["retryCount"] = "Running", 1
		op["message"] = op["message"].(string) + ". Retrying attempt #1 at 3:04PM."
	}
	op["syncResult"].(map[string]any)["resources"] = []any{map[string]any{
		"group": "batch", "version": "v1", "kind": "Job", "namespace": "demo", "name": "smoke", "status": "Synced",
		"hookType": "PostSync", "hookPhase": "Failed", "syncPhase": "PostSync", "message": msg}}
	st["sync"].(map[string]any)["status"] = "Synced"
}

func testHookFails(t *testing.T, h *harness, retried bool) {
	h.hookRetried = retried
	h.write(firstPatch, patch)
	const smoke = "Job has reached the specified backoff limit"
	h.hookFail = func(cluster, commit string) string {
		if strings.Contains(h.run(h.dir, "show", commit+":rendered/workload/"+clusters[cluster]+"/templates/demo.yaml"), "1.1.0") {
			return smoke
		}
		return ""
	}
	res, err := h.rollout(rollout.Options{Approve: []string{"production"}})
	var se *rollout.StepError
	if !errors.As(err, &se) {
		t.Fatalf("want a *StepError, got %v (%+v)", err, res)
	}
	want := "failed: sync failed: one or more synchronization tasks completed unsuccessfully; PostSync hook Job demo/smoke: Failed; " + smoke
	if retried {
		want = "sync failed, Argo CD retries it: one or more synchronization tasks completed unsuccessfully. Retrying attempt #1 at 3:04PM.; PostSync hook Job demo/smoke: Failed; " + smoke
	}
	if len(se.Failures) != 1 || se.Failures[0].App != "demo" || se.Failures[0].Target != "integration/us-east1" || se.Failures[0].Reason != want {
		t.Errorf("failures: %+v\nwant demo at integration/us-east1: %s", se.Failures, want)
	}
	if len(res.Steps) != 1 || h.exists("config/workload/demo/integration/eu-west1/patch-001.yaml") {
		t.Errorf("the patch went on after the failed hook: steps %v", res.Steps)
	}
}

// noClusterRegion adds integration/ap-south1, where no cluster of the
// inventory runs.
func noClusterRegion(watch string) string {
	return strings.Replace(fixture["config/config.yaml"], "regions: [us-east1, eu-west1]",
		"regions:\n        - us-east1\n        - eu-west1\n        - name: ap-south1"+watch, 1)
}

func testNothingToWatch(t *testing.T, h *harness) {
	h.write("config/config.yaml", noClusterRegion(""))
	if _, err := output.Run(output.Options{Root: h.dir, FS: os.DirFS(h.dir)}); err != nil {
		t.Fatal(err)
	}
	h.run(h.dir, "add", "-A")
	h.run(h.dir, "commit", "-qm", "ap-south1, no cluster yet")
	h.write(firstPatch, patch)
	res, err := h.rollout(rollout.Options{})
	var ve *values.Error
	if !errors.As(err, &ve) {
		t.Fatalf("want a *values.Error, got %v (%+v)", err, res)
	}
	for _, w := range []string{"the step to integration/ap-south1 has nothing to wait on: no workload cluster of the inventory runs under integration/ap-south1",
		"config/config.yaml:10:11", "rollout: {watch: false}"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	if len(res.Steps) != 2 || h.exists("config/workload/demo/integration/ap-south1/patch-001.yaml") {
		t.Errorf("steps %v: want two, the patch not at ap-south1", res.Steps)
	}
	if st := h.run(h.dir, "status", "--porcelain"); st != "" {
		t.Errorf("the stopped rollout changed the work tree:\n%s", st)
	}

	// Declared: the step goes on, not waited for.
	h.write("config/config.yaml", noClusterRegion("\n          rollout: {watch: false}"))
	h.run(h.dir, "commit", "-qam", "ap-south1 has nothing to watch")
	h.events = nil
	res, err = h.rollout(rollout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != rollout.StoppedGate || !slices.Contains(h.kinds(), rollout.KindUnwatched) {
		t.Errorf("with watch: false: %+v, events %v", res, h.kinds())
	}
	if !h.exists("config/workload/demo/integration/patch-001.yaml") {
		t.Errorf("the patch should be coalesced at integration")
	}
}
