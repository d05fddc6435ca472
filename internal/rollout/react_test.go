//go:build linux

package rollout_test

import (
	"context"
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
	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/rollout"
)

// TestReact: how a waiting rollout reacts to Argo CD's changes and what
// it asks of Argo CD, on the real API server.
func TestReact(t *testing.T) {
	api := startAPI(t)
	t.Run("a change to an unrelated Application wakes no wait", func(t *testing.T) { testUnrelated(t, newHarness(t, api)) })
	t.Run("a normal refresh of the root after the push, again once taken", func(t *testing.T) { testRefreshes(t, newHarness(t, api)) })
	t.Run("a refresh not taken is reported, not asked again", func(t *testing.T) { testStalled(t, newHarness(t, api)) })
}

// waitFirst runs the first step of the patch (until integration/us-east1,
// soak 0) with env, Argo CD not reacting, and returns once the step waits
// for its Applications; done gets the rollout's end. h.onEvent, if set,
// still gets the events.
func (h *harness) waitFirst(env rollout.Env) (done chan error) {
	h.t.Helper()
	h.write(firstPatch, patch)
	h.frozen = true
	waiting := make(chan struct{})
	var once sync.Once
	on := h.onEvent
	h.onEvent = func(e rollout.Event) {
		if on != nil {
			on(e)
		}
		if e.Kind == rollout.KindWaiting {
			once.Do(func() { close(waiting) })
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	h.t.Cleanup(cancel)
	done = make(chan error, 1)
	soak := time.Duration(0)
	go func() {
		res, err := rollout.Run(ctx, env, rollout.Options{ClusterType: "workload", Component: "demo", Patch: "patch-001",
			Approver: "Jane Doe <jane@example.com>", Soak: &soak, Until: "integration/us-east1"})
		if err == nil && res.Stopped != rollout.StoppedUntil {
			err = &stopped{res.Stopped}
		}
		done <- err
	}()
	select {
	case <-waiting:
	case err := <-done:
		h.t.Fatalf("the rollout ended before it waited: %v", err)
	case <-ctx.Done():
		h.t.Fatal("the rollout never waited for its step")
	}
	return done
}

type stopped struct{ why string }

func (s *stopped) Error() string { return "stopped " + s.why + ", want " + rollout.StoppedUntil }

// end syncs the first step's cluster as Argo CD would and waits for the
// rollout to end.
func (h *harness) end(done chan error) {
	h.t.Helper()
	h.syncCluster("w1", clusters["w1"], h.run(h.bare, "rev-parse", "main"))
	select {
	case err := <-done:
		if err != nil {
			h.t.Fatal(err)
		}
	case <-time.After(2 * time.Minute):
		h.t.Fatal("the rollout did not see its step healthy")
	}
}

// A change to an Application no wait is about (another Application on the
// same Argo CD) wakes no wait, so no verdict is evaluated again for it;
// the change that makes the step healthy still ends the wait.
func testUnrelated(t *testing.T, h *harness) {
	env := h.env()
	woken, evaluated, undo := rollout.CountReactions()
	defer undo()
	done := h.waitFirst(env)
	w0, e0 := woken(), evaluated()
	ns := h.ns + "-w1"
	spec := map[string]any{"project": "default", "source": map[string]any{"repoURL": "https://charts.example.com", "chart": "other", "targetRevision": "1.0.0"},
		"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": "other"}}
	const unrelated = 30
	for i := range unrelated {
		health := []string{"Healthy", "Progressing"}[i%2]
		h.apply(ns, "other", spec, status(spec, "1.0.0", health, "Succeeded", "", h.clock.Now().UTC().Format(time.RFC3339)))
	}
	// Written after the unrelated changes, the step's Applications come
	// after them on the watch: when the wait has seen its step healthy,
	// the watcher has been told of all of them.
	h.end(done)
	// What may wake the wait after its first look: the two refreshes it
	// asked of root and demo (their annotation), and the sync of each. Its
	// evaluations: one per wake at most, and two reads once it passed (when
	// it became healthy, what the failure budget counts).
	dw, de := woken()-w0, evaluated()-e0
	if dw < 1 || dw > 4 || de > dw+2 {
		t.Errorf("after %d changes to an unrelated Application and 2 to the step's: the wait was woken %d times and evaluated %d times, want 1 to 4 wakes, an evaluation for each at most (and 2 after)",
			unrelated, dw, de)
	}
}

// The wait asks the root of its cluster, which has not deployed the step,
// for a normal refresh right after the push, and again every RefreshEvery
// once Argo CD took the last one (removed the annotation); never demo,
// which the root changes (Argo CD compares a changed spec by itself).
func testRefreshes(t *testing.T, h *harness) {
	env, patches := h.refreshEnv()
	waits := make(chan rollout.Event, 100)
	h.onEvent = func(e rollout.Event) {
		if e.Kind == rollout.KindWaiting {
			waits <- e
		}
	}
	done := h.waitFirst(env)
	got := map[string]int{}
	next := func() {
		t.Helper()
		select {
		case p := <-patches:
			got[p]++
		case <-time.After(30 * time.Second):
			t.Fatalf("refreshes asked so far: %v, want one more", got)
		}
	}
	next() // right after the push
	// Argo CD takes the refresh, and demo changes after it: once the wait
	// has seen demo's change, it has seen the root's.
	ns := h.ns + "-w1"
	if _, err := h.dyn.Resource(live.ApplicationGVR).Namespace(ns).Patch(context.Background(), "root", types.MergePatchType,
		[]byte(`{"metadata":{"annotations":{"argocd.argoproj.io/refresh":null}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	h.progressDemo(waits)
	h.clock.Step(env.RefreshEvery)
	next()
	h.end(done)
	checkRefreshes(t, got, patches, map[string]int{"root normal": 2})
}

// The wait asks the root a refresh after the push, which Argo CD never
// takes (its controller down: the annotation stays). It does not ask
// again (the same annotation patched again changes nothing), and after
// three RefreshEvery it reports the ask as stalled.
func testStalled(t *testing.T, h *harness) {
	env, patches := h.refreshEnv()
	waits, stalled := make(chan rollout.Event, 100), make(chan rollout.Event, 100)
	h.onEvent = func(e rollout.Event) {
		switch e.Kind {
		case rollout.KindWaiting:
			waits <- e
		case rollout.KindStalled:
			stalled <- e
		}
	}
	done := h.waitFirst(env)
	select {
	case <-patches: // right after the push
	case <-time.After(30 * time.Second):
		t.Fatal("the wait asked no refresh after the push")
	}
	// demo changes after the root's annotation: once the wait has seen
	// demo's change, its watcher has seen the root carry the annotation.
	h.progressDemo(waits)
	h.clock.Step(3 * env.RefreshEvery)
	select {
	case e := <-stalled:
		if want := "Argo CD has not taken the refresh of Application root on w1 asked 30s ago"; !strings.Contains(e.Message, want) || e.Step != "integration/us-east1" {
			t.Errorf("stalled event of step %s: %q, want step integration/us-east1 and %q", e.Step, e.Message, want)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the wait never reported the refresh Argo CD did not take")
	}
	h.end(done)
	checkRefreshes(t, map[string]int{"root normal": 1}, patches, map[string]int{"root normal": 1})
}

// checkRefreshes compares the refreshes asked of Argo CD, those counted in
// got and those left in patches, with want.
func checkRefreshes(t *testing.T, got map[string]int, patches chan string, want map[string]int) {
	t.Helper()
	for drained := false; !drained; {
		select {
		case p := <-patches:
			got[p]++
		default:
			drained = true
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("refreshes asked of Argo CD (-want +got):\n%s", d)
	}
}

// refreshEnv is the harness's Env asking refreshes every 10s, and the
// refreshes asked of Argo CD as made ("root normal").
func (h *harness) refreshEnv() (rollout.Env, chan string) {
	env := h.env()
	env.RefreshEvery = 10 * time.Second
	patches := make(chan string, 100)
	connect := env.Connect
	env.Connect = func(c *fleet.Cluster) (dynamic.Interface, error) {
		dyn, err := connect(c)
		return patchSeen{dyn, patches}, err
	}
	return env, patches
}

// progressDemo makes demo progressing on w1, as Argo CD would, and returns
// once the wait has seen it (a KindWaiting event on waits): its watcher
// has then seen every change made before to w1's Applications, which come
// before demo's on one watch.
func (h *harness) progressDemo(waits <-chan rollout.Event) {
	h.t.Helper()
	ns := h.ns + "-w1"
	demo, err := h.dyn.Resource(live.ApplicationGVR).Namespace(ns).Get(context.Background(), "demo", metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	if err := unstructured.SetNestedField(demo.Object, "Progressing", "status", "health", "status"); err != nil {
		h.t.Fatal(err)
	}
	if _, err := h.dyn.Resource(live.ApplicationGVR).Namespace(ns).Update(context.Background(), demo, metav1.UpdateOptions{}); err != nil {
		h.t.Fatal(err)
	}
	for seen := false; !seen; {
		select {
		case e := <-waits:
			seen = slices.ContainsFunc(e.Apps, func(a rollout.AppState) bool { return a.Name == "demo" && a.Health == "Progressing" })
		case <-time.After(30 * time.Second):
			h.t.Fatal("the wait never saw demo progressing")
		}
	}
}

// patchSeen is an Argo CD's API server that tells of each refresh asked
// of it ("<Application> <hard|normal>") once made, passing every call on.
type patchSeen struct {
	dynamic.Interface
	seen chan<- string
}

func (p patchSeen) Resource(gvr schema.GroupVersionResource) dynamic.NamespaceableResourceInterface {
	return patchSeenResource{p.Interface.Resource(gvr), p.seen}
}

type patchSeenResource struct {
	dynamic.NamespaceableResourceInterface
	seen chan<- string
}

func (r patchSeenResource) Namespace(ns string) dynamic.ResourceInterface {
	return patchSeenNamespace{r.NamespaceableResourceInterface.Namespace(ns), r.seen}
}

type patchSeenNamespace struct {
	dynamic.ResourceInterface
	seen chan<- string
}

func (r patchSeenNamespace) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, sub ...string) (*unstructured.Unstructured, error) {
	u, err := r.ResourceInterface.Patch(ctx, name, pt, data, opts, sub...)
	for _, kind := range []string{"hard", "normal"} {
		if string(data) == `{"metadata":{"annotations":{"argocd.argoproj.io/refresh":"`+kind+`"}}}` {
			r.seen <- name + " " + kind
		}
	}
	return u, err
}
