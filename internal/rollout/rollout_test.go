//go:build linux

package rollout_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/hint"
	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/output"
	"github.com/strata-fleet/strata/internal/promote"
	"github.com/strata-fleet/strata/internal/rollout"
	"github.com/strata-fleet/strata/internal/rollout/writer"
)

// TestRollout runs the rollout against a real API server whose Application
// objects the test updates as Argo CD would, once per pushed commit.
func TestRollout(t *testing.T) {
	api := startAPI(t)
	t.Run("healthy patch through the sequence, with a gate", func(t *testing.T) { testHealthy(t, newHarness(t, api)) })
	t.Run("sync failure stops at the first step", func(t *testing.T) { testSyncFailure(t, newHarness(t, api), false) })
	t.Run("sync failure reverted", func(t *testing.T) { testSyncFailure(t, newHarness(t, api), true) })
	t.Run("a sync Argo CD keeps retrying fails the step", func(t *testing.T) { testRetrying(t, newHarness(t, api)) })
	t.Run("a failing check stops the step", func(t *testing.T) { testCheckFails(t, newHarness(t, api)) })
	t.Run("degraded during the soak", func(t *testing.T) { testSoakDegraded(t, newHarness(t, api)) })
	t.Run("timeout names what each Application does", func(t *testing.T) { testTimeout(t, newHarness(t, api)) })
	t.Run("a killed rollout resumes", func(t *testing.T) { testResume(t, newHarness(t, api)) })
	t.Run("a resumed rollout soaks what remains since Argo CD synced", func(t *testing.T) { testResumeSoak(t, newHarness(t, api), false) })
	t.Run("a resumed rollout soaks what remains since the root synced", func(t *testing.T) { testResumeSoak(t, newHarness(t, api), true) })
	t.Run("a rollout resumed after a soak does not soak again", func(t *testing.T) { testResumeSoaked(t, newHarness(t, api)) })
	t.Run("dry run", func(t *testing.T) { testDryRun(t, newHarness(t, api)) })
	t.Run("an unreachable Argo CD stops it before it commits", func(t *testing.T) { testUnreachable(t, newHarness(t, api)) })
	t.Run("a first copy past a target stops it before it commits", func(t *testing.T) { testGap(t, newHarness(t, api)) })
	t.Run("a moving main: others' commits kept, steps replayed", func(t *testing.T) { testMovingMain(t, newHarness(t, api)) })
	t.Run("a moving main that changed the patch stops it", func(t *testing.T) { testMovingMainConflict(t, newHarness(t, api)) })
	t.Run("every patch in flight at once", func(t *testing.T) { testAll(t, newHarness(t, api)) })
}

var wantSubjects = []string{
	"Start patch-001 of workload/demo at integration/us-east1: 1 of 3 targets' rendered output changed",
	"Promote patch-001 of workload/demo to integration/eu-west1, coalesce it at integration: 1 of 3 targets' rendered output changed",
	"Promote patch-001 of workload/demo to production/us-east1, coalesce it at production, fold it into config/workload/demo/values.yaml: 1 of 3 targets' rendered output changed",
}

func testHealthy(t *testing.T, h *harness) {
	h.write(firstPatch, patch)
	res, err := h.rollout(rollout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := &rollout.Result{Steps: res.Steps, Stopped: rollout.StoppedGate, Gates: []string{"production"},
		Command: "strata rollout workload demo patch-001 --approve production",
		Next:    hint.Strata("rollout", "workload", "demo", "patch-001", "--approve", "production")}
	if d := cmp.Diff(want, res); d != "" {
		t.Errorf("first run (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantSubjects[:2], h.subjects()); d != "" {
		t.Errorf("commits before the gate (-want +got):\n%s", d)
	}
	// The repository lock covers the writes, never the waits and soaks.
	if d := cmp.Diff(map[rollout.Kind]bool{rollout.KindPromoted: true, rollout.KindHealthy: false, rollout.KindGate: true}, map[rollout.Kind]bool{
		rollout.KindPromoted: h.lockSeen[rollout.KindPromoted], rollout.KindHealthy: h.lockSeen[rollout.KindHealthy], rollout.KindGate: h.lockSeen[rollout.KindGate]}); d != "" {
		t.Errorf("repository lock held at events (-want +got):\n%s", d)
	}
	if !h.exists("config/workload/demo/integration/patch-001.yaml") || h.exists("config/workload/demo/production/us-east1/patch-001.yaml") {
		t.Errorf("before the gate, the patch should be coalesced at integration and absent from production")
	}

	h.events = nil
	res, err = h.rollout(rollout.Options{Approve: []string{"production"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != rollout.StoppedDone || len(res.Steps) != 1 {
		t.Errorf("second run: %+v, want done in one step", res)
	}
	if d := cmp.Diff(wantSubjects, h.subjects()); d != "" {
		t.Errorf("commits (-want +got):\n%s", d)
	}
	if v := h.read("config/workload/demo/values.yaml"); !strings.Contains(v, `version: "1.1.0"`) || !strings.HasPrefix(v, "# The demo chart.") {
		t.Errorf("values.yaml should hold the patch, its comment kept:\n%s", v)
	}
	body := h.run(h.dir, "log", "-1", "--format=%b")
	for _, w := range []string{"Rendered output changed at:\n  workload/production/us-east1", "Approved-by: Jane Doe <jane@example.com> for production", "Strata-Rollout: workload/demo/patch-001"} {
		if !strings.Contains(body, w) {
			t.Errorf("the last commit's message lacks %q:\n%s", w, body)
		}
	}
	if h.run(h.dir, "rev-parse", "HEAD") != h.run(h.dir, "rev-parse", "origin/main") {
		t.Errorf("the last step is not pushed")
	}
	wantKinds := []rollout.Kind{rollout.KindStart, rollout.KindHealthy, rollout.KindPromoted, rollout.KindHealthy, rollout.KindDone}
	if d := cmp.Diff(wantKinds, h.kinds()); d != "" {
		t.Errorf("events of the second run (-want +got):\n%s", d)
	}
	// Each step re-rendered only the targets it could change: what it
	// committed is what a full render gives.
	check, err := output.Run(output.Options{Root: h.dir, FS: os.DirFS(h.dir), Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if !check.Plan.Empty() {
		t.Errorf("rendered/ after the rollout is not what a full render gives: %+v", check.Plan)
	}
}

// badVersion makes the fake Argo CD fail the sync of a commit whose demo
// is at version "bad", as the API server would reject it.
const badPatch = `applications:
  demo:
    source:
      helm:
        valuesObject:
          version: "bad"
`

const rejected = `one or more objects failed to apply, reason: ConfigMap "demo" is invalid: data[version]: Invalid value: "bad"`

func (h *harness) rendersBad(cluster, commit string) bool {
	return strings.Contains(h.run(h.dir, "show", commit+":rendered/workload/"+clusters[cluster]+"/templates/demo.yaml"), "version: bad")
}

func testSyncFailure(t *testing.T, h *harness, revert bool) {
	h.write(firstPatch, badPatch)
	h.failSync = func(cluster, commit string) string {
		if h.rendersBad(cluster, commit) {
			return rejected
		}
		return ""
	}
	res, err := h.rollout(rollout.Options{Revert: revert})
	var se *rollout.StepError
	if !errors.As(err, &se) {
		t.Fatalf("want a *StepError, got %v", err)
	}
	if len(se.Failures) != 1 || se.Failures[0].App != "demo" || se.Failures[0].Target != "integration/us-east1" || !strings.Contains(se.Failures[0].Reason, rejected) {
		t.Errorf("failures: %+v, want demo at integration/us-east1 with Argo CD's message", se.Failures)
	}
	if !strings.Contains(err.Error(), rejected) || !strings.Contains(err.Error(), "integration/us-east1: Application demo on w1: failed: sync failed: one or more objects") {
		t.Errorf("error: %v", err)
	}
	if len(res.Steps) != 1 {
		t.Errorf("steps: %v, want the first alone", res.Steps)
	}
	if h.exists("config/workload/demo/integration/eu-west1/patch-001.yaml") {
		t.Errorf("the patch went on after the failure")
	}
	if !revert {
		if !h.exists(firstPatch) || se.Reverted != "" {
			t.Errorf("without --on-failure revert the step stays")
		}
		return
	}
	if h.exists(firstPatch) || se.Reverted == "" {
		t.Errorf("with --on-failure revert, the step is reverted (reverted %q)", se.Reverted)
	}
	if got := h.subjects(); len(got) != 2 || !strings.HasPrefix(got[1], `Revert "Start patch-001`) {
		t.Errorf("commits: %q", got)
	}
	if body := h.run(h.dir, "log", "-1", "--format=%B"); !strings.Contains(body, "\nStrata-Failed: integration/us-east1: Application demo on w1: failed: sync failed: one or more objects") {
		t.Errorf("the revert does not say why (a Strata-Failed trailer):\n%s", body)
	}
	if h.run(h.dir, "rev-parse", "HEAD") != h.run(h.dir, "rev-parse", "origin/main") {
		t.Errorf("the revert is not pushed")
	}
	if !slices.Contains(h.kinds(), rollout.KindReverted) {
		t.Errorf("no reverted event: %v", h.kinds())
	}
}

func testCheckFails(t *testing.T, h *harness) {
	h.write("config/config.yaml", strings.Replace(fixture["config/config.yaml"], "cluster_types:",
		"rollout:\n  checks:\n    - {name: smoke, command: 'echo smoke test of $STRATA_TARGETS on $STRATA_CLUSTERS failed; exit 3', timeout: 10s}\ncluster_types:", 1))
	h.run(h.dir, "commit", "-qam", "a smoke test")
	h.write(firstPatch, patch)
	res, err := h.rollout(rollout.Options{})
	var se *rollout.StepError
	if !errors.As(err, &se) {
		t.Fatalf("want a *StepError, got %v", err)
	}
	want := "exit status 3\n    smoke test of workload/integration/us-east1 on w1 failed"
	if len(se.Failures) != 1 || se.Failures[0].Check != "smoke" || se.Failures[0].Reason != want {
		t.Errorf("failures: %+v, want the smoke check with %q", se.Failures, want)
	}
	if len(res.Steps) != 1 || h.exists("config/workload/demo/integration/eu-west1/patch-001.yaml") {
		t.Errorf("the patch went on after the failed check")
	}
}

func testSoakDegraded(t *testing.T, h *harness) {
	soak := 10 * time.Minute
	h.write(firstPatch, patch)
	var degrade bool
	h.health = func(cluster, _ string) string {
		if degrade && cluster == "w1" {
			return "Degraded"
		}
		return ""
	}
	h.onEvent = func(e rollout.Event) {
		if e.Kind == rollout.KindSoaking && !degrade {
			degrade = true
			h.clock.Step(time.Minute)
			h.syncAll()
		}
	}
	_, err := h.rollout(rollout.Options{Soak: &soak})
	var se *rollout.StepError
	if !errors.As(err, &se) {
		t.Fatalf("want a *StepError, got %v", err)
	}
	if len(se.Failures) != 1 || se.Failures[0].App != "demo" || se.Failures[0].Reason != `degraded during the soak: unhealthy: Deployment demo (Deployment "demo" exceeded its progress deadline)` {
		t.Errorf("failures: %+v", se.Failures)
	}
}

func testTimeout(t *testing.T, h *harness) {
	h.write(firstPatch, patch)
	h.health = func(cluster, _ string) string {
		if cluster == "w1" {
			return "Progressing"
		}
		return ""
	}
	timeout := 5 * time.Minute
	h.onEvent = func(e rollout.Event) {
		if e.Kind == rollout.KindWaiting && e.Synced == e.Total {
			h.clock.Step(timeout)
		}
	}
	_, err := h.rollout(rollout.Options{Timeout: &timeout})
	var se *rollout.StepError
	if !errors.As(err, &se) {
		t.Fatalf("want a *StepError, got %v", err)
	}
	if len(se.Failures) != 2 || !strings.Contains(se.Failures[0].Reason, "timed out after 5m0s") || se.Failures[1].App != "demo" || se.Failures[1].Reason != "synced: health Progressing" {
		t.Errorf("failures: %+v", se.Failures)
	}
}

// testResume kills the rollout while it waits for the second step, then
// runs it again: it ends as an uninterrupted one.
func testResume(t *testing.T, h *harness) {
	h.write(firstPatch, patch)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	promoted := 0
	h.onEvent = func(e rollout.Event) {
		if e.Kind == rollout.KindPromoted {
			if promoted++; promoted == 2 {
				h.frozen = true // Argo CD has not synced it yet
				cancel()
			}
		}
	}
	if _, err := h.rolloutCtx(ctx, rollout.Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("the killed rollout: %v", err)
	}
	h.onEvent, h.frozen = nil, false
	res, err := h.rollout(rollout.Options{Approve: []string{"production"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != rollout.StoppedDone {
		t.Errorf("resumed rollout: %+v", res)
	}
	if d := cmp.Diff(wantSubjects, h.subjects()); d != "" {
		t.Errorf("commits (-want +got):\n%s", d)
	}
}

// testResumeSoak kills the rollout before Argo CD syncs its first step;
// Argo CD syncs it 5 minutes after the commit; the rollout, run again 4
// minutes later, soaks the 6 minutes that remain of 10 since the sync, not
// the 1 that remains since the commit. With rootLater, the root's last
// sync ended 3 minutes after the Application's: 9 minutes remain.
func testResumeSoak(t *testing.T, h *harness, rootLater bool) {
	soak := 10 * time.Minute
	h.write(firstPatch, patch)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h.onEvent = func(e rollout.Event) {
		if e.Kind == rollout.KindPromoted {
			h.frozen = true
			cancel()
		}
	}
	if _, err := h.rolloutCtx(ctx, rollout.Options{Soak: &soak}); !errors.Is(err, context.Canceled) {
		t.Fatalf("the killed rollout: %v", err)
	}
	h.clock.Step(5 * time.Minute)
	h.onEvent, h.frozen = nil, false
	h.syncAll()
	want := 6 * time.Minute
	if rootLater {
		h.clock.Step(3 * time.Minute)
		patch := fmt.Sprintf(`{"status":{"operationState":{"finishedAt":%q}}}`, h.clock.Now().UTC().Format(time.RFC3339))
		if _, err := h.dyn.Resource(live.ApplicationGVR).Namespace(h.ns+"-w1").Patch(context.Background(), "root", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		h.clock.Step(time.Minute)
		want = 9 * time.Minute
	} else {
		h.clock.Step(4 * time.Minute)
	}

	var soakFor []time.Duration
	h.events = nil
	h.onEvent = func(e rollout.Event) {
		if e.Kind == rollout.KindSoaking && len(soakFor) == 0 {
			left := e.SoakUntil.Sub(h.clock.Now())
			soakFor = append(soakFor, left.Round(time.Second)) // Argo CD records seconds
			h.clock.Step(left)
		}
	}
	h.frozen = true // no new sync: the one of 4 minutes ago stands
	if _, err := h.rollout(rollout.Options{Soak: &soak, Until: "integration/us-east1"}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]time.Duration{want}, soakFor); d != "" {
		t.Errorf("the resumed soak (-want +got):\n%s", d)
	}
}

// testResumeSoaked kills the rollout before Argo CD syncs its first step;
// Argo CD syncs it, and the rollout, run again 12 minutes later, goes on
// to the next step without soaking the first again: its 10 minutes are
// over.
func testResumeSoaked(t *testing.T, h *harness) {
	soak := 10 * time.Minute
	h.write(firstPatch, patch)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h.onEvent = func(e rollout.Event) {
		if e.Kind == rollout.KindPromoted {
			h.frozen = true
			cancel()
		}
	}
	if _, err := h.rolloutCtx(ctx, rollout.Options{Soak: &soak}); !errors.Is(err, context.Canceled) {
		t.Fatalf("the killed rollout: %v", err)
	}
	h.onEvent, h.frozen = nil, false
	h.syncAll()
	h.clock.Step(12 * time.Minute)
	var soaked []string
	h.events = nil
	h.onEvent = func(e rollout.Event) {
		if e.Kind == rollout.KindSoaking {
			soaked = append(soaked, e.Step)
			h.clock.Step(e.SoakUntil.Sub(h.clock.Now()))
		}
	}
	if _, err := h.rollout(rollout.Options{Soak: &soak, Until: "integration/eu-west1"}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"integration/eu-west1"}, soaked); d != "" {
		t.Errorf("the steps soaked (-want +got):\n%s", d)
	}
}

func testDryRun(t *testing.T, h *harness) {
	h.write(firstPatch, patch)
	h.run(h.dir, "add", "-A")
	h.run(h.dir, "commit", "-qm", "patch-001 at us-east1")
	before := h.commits()
	res, err := h.rollout(rollout.Options{DryRun: true, Approve: []string{"production"}})
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, e := range h.events {
		if e.Kind == rollout.KindPlanned {
			steps = append(steps, e.Step+": "+e.Message)
		}
	}
	want := []string{
		"integration/eu-west1: Promote patch-001 of workload/demo to integration/eu-west1, coalesce it at integration",
		"production/us-east1: Promote patch-001 of workload/demo to production/us-east1, coalesce it at production, fold it into config/workload/demo/values.yaml",
	}
	if d := cmp.Diff(want, steps); d != "" {
		t.Errorf("planned steps (-want +got):\n%s", d)
	}
	if res.Stopped != rollout.StoppedDone || h.commits() != before || h.run(h.dir, "status", "--porcelain") != "" {
		t.Errorf("a dry run changed the repository: %+v", res)
	}
}

func testRetrying(t *testing.T, h *harness) {
	h.write(firstPatch, badPatch)
	msg := rejected + ". Retrying attempt #" + fmt.Sprint(rollout.FailAfterRetries) + " at 10:53PM."
	h.retrySync = func(cluster, commit string) string {
		if h.rendersBad(cluster, commit) {
			return msg
		}
		return ""
	}
	_, err := h.rollout(rollout.Options{})
	var se *rollout.StepError
	if !errors.As(err, &se) {
		t.Fatalf("want a *StepError, got %v", err)
	}
	if len(se.Failures) != 1 || se.Failures[0].Reason != "sync failed, Argo CD retries it: "+msg {
		t.Errorf("failures: %+v", se.Failures)
	}
}

// An Argo CD the rollout would wait on that cannot be read stops it
// before its first commit or push, naming the cluster and the reason.
func testUnreachable(t *testing.T, h *harness) {
	h.unreachable, h.why = "w2", "dial tcp 127.0.0.1:1: connect: connection refused"
	h.write(firstPatch, patch)
	before, remote := h.commits(), h.run(h.dir, "rev-parse", "origin/main")
	_, err := h.rollout(rollout.Options{})
	var ue *rollout.UnreachableError
	if !errors.As(err, &ue) {
		t.Fatalf("rollout: %v, want an UnreachableError", err)
	}
	if d := cmp.Diff([]string{"w2: " + h.why}, ue.Reasons); d != "" {
		t.Errorf("reasons (-want +got):\n%s", d)
	}
	h.run(h.dir, "fetch", "-q")
	if h.commits() != before || h.run(h.dir, "rev-parse", "origin/main") != remote {
		t.Errorf("the rollout committed or pushed before it could reach every Argo CD")
	}
}

// A patch written by hand at eu-west1, skipping us-east1, can never be
// promoted: the rollout says so before it commits its first copy (it
// committed it, waited for it, and failed at the next step's plan).
func testGap(t *testing.T, h *harness) {
	h.write("config/workload/demo/integration/eu-west1/patch-001.yaml", patch)
	before, remote := h.commits(), h.run(h.dir, "rev-parse", "origin/main")
	_, err := h.rollout(rollout.Options{})
	var gap *promote.GapError
	if !errors.As(err, &gap) || !strings.Contains(err.Error(), "nothing was committed") {
		t.Fatalf("rollout: %v, want a GapError", err)
	}
	if gap.Latest != "integration/eu-west1" || gap.Missing != "integration/us-east1" {
		t.Errorf("the gap: %+v, want integration/us-east1 missing before integration/eu-west1", *gap)
	}
	h.run(h.dir, "fetch", "-q")
	if h.commits() != before || h.run(h.dir, "rev-parse", "origin/main") != remote {
		t.Errorf("the rollout committed or pushed a patch it cannot promote")
	}
}

// Someone pushes before each step's push, and once while a step waits
// (Argo CD then syncs their newer commit, which the rollout's clone has
// not fetched): every commit they pushed is kept, each step is replayed on
// theirs and made once (the first copy, and a promotion), the wait judges
// their commit, fetched, and the next step starts from it.
func testMovingMain(t *testing.T, h *harness) {
	h.write(firstPatch, patch)
	pushed := map[string]bool{}
	h.beforePush = func(int) {
		// Before the first push of each step (of the first copy, and of
		// the promotion to eu-west1).
		subject := h.run(h.dir, "log", "-1", "--format=%s")
		kind, _, _ := strings.Cut(subject, " ")
		if !pushed[kind] {
			pushed[kind] = true
			h.otherPush("docs/"+kind+".md", "a note\n", "docs: before "+kind)
		}
	}
	waited := false
	h.onEvent = func(e rollout.Event) {
		if e.Kind == rollout.KindPromoted && !waited {
			waited = true
			h.otherPush("docs/while-waiting.md", "waiting\n", "docs: while the first step waits")
		}
	}
	res, err := h.rollout(rollout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != rollout.StoppedGate || len(res.Steps) != 2 {
		t.Errorf("result %+v, want two steps, then the gate", res)
	}
	h.run(h.dir, "fetch", "-q")
	want := []string{"docs: before Start", wantSubjects[0], "docs: while the first step waits", "docs: before Promote", wantSubjects[1]}
	got := strings.Split(h.run(h.dir, "log", "--reverse", "--format=%s", "origin/main~5..origin/main"), "\n")
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the remote's history (-want +got):\n%s", d)
	}
	replayed := 0
	for _, e := range h.events {
		if e.Kind == rollout.KindReplayed {
			replayed++
		}
	}
	if replayed != 2 {
		t.Errorf("%d replayed events, want 2: %v", replayed, h.kinds())
	}
}

// Someone changes the patch itself before the second step's push: that is
// a conflict, which stops the rollout with nothing of the step pushed.
func testMovingMainConflict(t *testing.T, h *harness) {
	h.write(firstPatch, patch)
	var theirs string
	h.beforePush = func(n int) {
		if n == 2 {
			theirs = h.otherPush(firstPatch, strings.ReplaceAll(patch, "1.1.0", "1.2.0"), "demo: 1.2.0 instead")
		}
	}
	_, err := h.rollout(rollout.Options{})
	var ce *writer.ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("rollout: %v, want a ConflictError", err)
	}
	if !strings.Contains(err.Error(), firstPatch) {
		t.Errorf("the conflict does not name the file: %v", err)
	}
	h.run(h.dir, "fetch", "-q")
	if got := h.run(h.dir, "rev-parse", "origin/main"); got != theirs {
		t.Errorf("the remote is at %.12s, want their commit %.12s (nothing of the step pushed)", got, theirs)
	}
}

// RunAll rolls out both patches in flight at once, each to the gate, with
// one commit per step and every event naming its patch, from a clone that
// others' pushes left behind.
func testAll(t *testing.T, h *harness) {
	h.write(firstPatch, patch)
	h.write("config/workload/demo/integration/us-east1/patch-002.yaml", `applications:
  demo:
    source:
      helm:
        valuesObject:
          color: blue
`)
	if _, err := output.Run(output.Options{Root: h.dir, FS: os.DirFS(h.dir)}); err != nil {
		t.Fatal(err)
	}
	h.run(h.dir, "add", "-A")
	h.run(h.dir, "commit", "-q", "-m", "two patches")
	h.run(h.dir, "push", "-q")
	// Someone pushes before the rollouts start: they go on from there.
	h.otherPush("docs/note.md", "a note\n", "docs: a note")
	h.syncAll()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The rollouts share one list and watch of each Argo CD.
	env := h.env()
	lists := &listCount{n: map[string]int{}}
	connect := env.Connect
	env.Connect = func(c *fleet.Cluster) (dynamic.Interface, error) {
		dyn, err := connect(c)
		return countingClient{dyn, lists, c.Name}, err
	}
	results, err := rollout.RunAll(ctx, env, rollout.Options{Approver: "Jane Doe <jane@example.com>"})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]int{"w1": 1, "w2": 1, "w3": 1}; !maps.Equal(lists.get(), want) {
		t.Errorf("lists of Applications per Argo CD: got %v, want %v (one for all the patches)", lists.get(), want)
	}
	var got []string
	for _, pr := range results {
		if pr.Err != nil {
			t.Errorf("%s: %v", pr.Patch, pr.Err)
			continue
		}
		got = append(got, fmt.Sprintf("%s %s %d", pr.Patch, pr.Result.Stopped, len(pr.Result.Steps)))
	}
	want := []string{"workload/demo/patch-001 gate 1", "workload/demo/patch-002 gate 1"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("results (-want +got):\n%s", d)
	}
	subjects := h.run(h.dir, "log", "--format=%s", "HEAD~2..HEAD")
	for _, p := range []string{"patch-001", "patch-002"} {
		if want := "Promote " + p + " of workload/demo to integration/eu-west1, coalesce it at integration: 1 of 3 targets' rendered output changed"; !strings.Contains(subjects, want) {
			t.Errorf("no commit %q in:\n%s", want, subjects)
		}
	}
	for _, e := range h.events {
		if e.Patch == "" {
			t.Errorf("event %s without its patch", e.Kind)
		}
	}
}

// listCount counts the lists of Applications per Argo CD.
type listCount struct {
	mu sync.Mutex
	n  map[string]int
}

func (l *listCount) get() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.n)
}

// countingClient counts, in lists, the lists of Applications made through
// it on the Argo CD of cluster.
type countingClient struct {
	dynamic.Interface
	lists   *listCount
	cluster string
}

func (c countingClient) Resource(gvr schema.GroupVersionResource) dynamic.NamespaceableResourceInterface {
	return countingResource{c.Interface.Resource(gvr), c, gvr}
}

type countingResource struct {
	dynamic.NamespaceableResourceInterface
	c   countingClient
	gvr schema.GroupVersionResource
}

func (r countingResource) Namespace(ns string) dynamic.ResourceInterface {
	return countingList{r.NamespaceableResourceInterface.Namespace(ns), r}
}

type countingList struct {
	dynamic.ResourceInterface
	r countingResource
}

func (l countingList) List(ctx context.Context, opts metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	if l.r.gvr == live.ApplicationGVR && opts.Continue == "" {
		l.r.c.lists.mu.Lock()
		l.r.c.lists.n[l.r.c.cluster]++
		l.r.c.lists.mu.Unlock()
	}
	return l.ResourceInterface.List(ctx, opts)
}
