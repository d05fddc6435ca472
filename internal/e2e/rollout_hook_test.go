//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/testing/testgit"
)

// smokePatch moves demo to 1.1.0 with a PostSync hook, a smoke test Job
// that fails.
const smokePatch = `applications:
  demo:
    source:
      helm:
        valuesObject:
          version: "1.1.0"
          smoke: true
`

// smokeFailed is the message of the Job's Failed condition, which Argo CD
// reports as the hook's.
const smokeFailed = "Job has reached the specified backoff limit"

// TestE2ERolloutHookFails: a step whose PostSync hook fails. Argo CD
// applies the step, finds its objects synced and healthy, runs the hook and
// fails the operation; the Application stays Synced and Healthy. Argo CD
// then retries the automated sync (5 times by default, from 5 s of
// backoff), running the hook again; the rollout does not wait for that: it
// fails the step with Argo CD's message and the hook's as soon as the
// failed attempt shows, long before its timeout, and goes no further;
// status --live shows the Application failed (docs/verdicts.md).
func TestE2ERolloutHookFails(t *testing.T) {
	testgit.Setenv(t)
	e := Start(t, Options{Spokes: rolloutSpokes[:2]})
	defer e.Done()
	mark := e.Mark()
	head := deploy(t, e)
	e.Converge(Expect{Head: head, Apps: expectApps(e), State: expectState(e, allAt(e, "1.0.0"))})
	mark("deploy the fleet at 1.0.0")

	app := appName("integration/int-sector-1/us-east1", "demo")
	e.Repo.WriteFile(firstRegion+"patch-005.yaml", smokePatch)
	// The rollout waits for the step while the test fails its hook; a
	// test that fails first ends the rollout before it returns.
	ctx, cancel := context.WithCancel(context.Background())
	var r Result
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		r = e.rollout(ctx, "", nil, "patch-005")
	}()
	defer func() { cancel(); <-finished }()
	e.WaitApp(app, "running its PostSync hook", func(a App) bool {
		return a.Phase == "Running" && strings.Contains(a.Message, "smoke")
	})
	e.failJob("spoke-a", "smoke")
	<-finished
	mark("rollout: the step's hook fails")

	for _, want := range []string{
		"Application " + app + " of spoke-a on the Argo CD of hub: sync failed, Argo CD retries it: ",
		"PostSync hook Job demo/smoke: Failed",
		smokeFailed,
	} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("the failed hook: want exit 1 with %q; got exit %d\n%s", want, r.Code, r.Stderr)
		}
	}
	if r.Code != 1 || strings.Contains(r.Stderr, "timed out") {
		t.Errorf("the failed hook: exit %d, want 1 at the failed attempt, not at the timeout\n%s", r.Code, r.Stderr)
	}
	if got := patchFiles(t, e, "patch-005.yaml"); len(got) != 1 {
		t.Errorf("patch-005 went on after the failed hook: %v", got)
	}

	// Argo CD's next attempt runs the hook again, a new Job that no
	// kubelet runs: the operation stays Running, with its retry count.
	s := e.StatusLive(e.Kubeconfig())
	checkLive(t, s, func(st live.AppState, o App) (live.State, string) {
		if st.Live != nil && st.Live.Name == app && st.ArgoCD == HubName {
			return live.Failed, "sync failed, Argo CD retries it: "
		}
		return live.Healthy, ""
	})
	mark("status --live: the Application whose hook failed is failed")
}

// failJob fails the Job name of the demo namespace on a cluster, as the
// Job controller does once its pods have failed backoffLimit+1 times
// (there is no kubelet to run them here): the FailureTarget and Failed
// conditions, which the API server requires together.
func (e *Env) failJob(cluster, name string) {
	e.t.Helper()
	ctx, cancel := e.ctx()
	defer cancel()
	now := time.Now().UTC().Format(time.RFC3339)
	cond := func(typ string) map[string]any {
		return map[string]any{"type": typ, "status": "True", "reason": "BackoffLimitExceeded", "message": smokeFailed,
			"lastProbeTime": now, "lastTransitionTime": now}
	}
	patch, _ := json.Marshal(map[string]any{"status": map[string]any{
		"startTime": now, "failed": 1, "active": 0,
		"conditions": []any{cond("FailureTarget"), cond("Failed")},
	}})
	_, err := e.clusterNamed(cluster).Kube.BatchV1().Jobs(namespaceOf(cluster)).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}, "status")
	if err != nil {
		e.t.Fatalf("failing Job %s on %s: %v", name, cluster, err)
	}
}
