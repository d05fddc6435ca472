//go:build linux

package rollout_test

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/output"
	"github.com/strata-fleet/strata/internal/rollout"
)

// TestWavesAndBudgets runs rollouts whose steps config.yaml's rollout
// waves: size and whose maxUnhealthy: lets clusters fail, against the
// harness's fake Argo CD.
func TestWavesAndBudgets(t *testing.T) {
	api := startAPI(t)
	t.Run("a cluster unhealthy within maxUnhealthy is named and the rollout goes on", func(t *testing.T) { testWithinBudget(t, newHarness(t, api)) })
	t.Run("past maxUnhealthy the step fails", func(t *testing.T) { testBeyondBudget(t, newHarness(t, api)) })
	t.Run("a cluster not healthy at the timeout within maxUnhealthy", func(t *testing.T) { testTimeoutWithinBudget(t, newHarness(t, api)) })
	t.Run("a wave is one step", func(t *testing.T) { testWaveStep(t, newHarness(t, api)) })
}

// setIntegration gives integration the rollout settings and regions
// given, and commits the config.
func (h *harness) setIntegration(rollout, regions string) {
	h.t.Helper()
	old := "    - name: integration\n      regions: [us-east1, eu-west1]\n"
	config := strings.Replace(fixture["config/config.yaml"], old,
		"    - name: integration\n      rollout: "+rollout+"\n      regions: "+regions+"\n", 1)
	if config == fixture["config/config.yaml"] {
		h.t.Fatal("the fixture's integration has changed")
	}
	h.write("config/config.yaml", config)
	if _, err := output.Run(output.Options{Root: h.dir, FS: os.DirFS(h.dir)}); err != nil {
		h.t.Fatal(err)
	}
	h.run(h.dir, "add", "-A")
	h.run(h.dir, "commit", "-qm", "rollout settings of integration")
}

// degraded makes the fake Argo CD report demo Degraded on the clusters
// given, at every commit from now on.
func (h *harness) degraded(clusters ...string) {
	h.health = func(cluster, _ string) string {
		if slices.Contains(clusters, cluster) {
			return "Degraded"
		}
		return ""
	}
}

// integrationPatch is the patch's first copy at integration: its first
// step has two clusters, w1 and w2.
const integrationPatch = "config/workload/demo/integration/patch-001.yaml"

func testWithinBudget(t *testing.T, h *harness) {
	h.setIntegration("{maxUnhealthy: 1}", "[us-east1, eu-west1]")
	h.write(integrationPatch, patch)
	h.degraded("w2")
	res, err := h.rollout(rollout.Options{Approve: []string{"production"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != rollout.StoppedDone {
		t.Errorf("result %+v, want done", res)
	}
	var unhealthy []rollout.Event
	for _, e := range h.events {
		if e.Kind == rollout.KindUnhealthy {
			unhealthy = append(unhealthy, e)
		}
	}
	if len(unhealthy) != 1 || len(unhealthy[0].Unhealthy) != 1 || unhealthy[0].Unhealthy[0].Cluster != "w2" || unhealthy[0].Step != "integration" {
		t.Fatalf("unhealthy events: %+v, want one naming w2 at integration", unhealthy)
	}
	if !strings.Contains(unhealthy[0].Message, "w2 unhealthy, within maxUnhealthy 1") {
		t.Errorf("message: %s", unhealthy[0].Message)
	}
	healthy := slices.IndexFunc(h.events, func(e rollout.Event) bool { return e.Kind == rollout.KindHealthy })
	if healthy < 0 || len(h.events[healthy].Unhealthy) != 1 {
		t.Errorf("the step's healthy event should name w2 as unhealthy: %+v", h.events)
	}
	body := h.run(h.dir, "log", "-1", "--format=%b")
	want := "Strata-Unhealthy: cluster w2 (integration/eu-west1) of the step to integration ("
	if !strings.Contains(body, want) || !strings.Contains(body, "degraded") {
		t.Errorf("the next step's commit lacks %q:\n%s", want, body)
	}
	if strings.Contains(h.run(h.dir, "log", "-1", "--skip=1", "--format=%b"), "Strata-Unhealthy") {
		t.Errorf("the step's own commit names what it did not know yet")
	}
}

func testBeyondBudget(t *testing.T, h *harness) {
	h.setIntegration("{maxUnhealthy: 1}", "[us-east1, eu-west1]")
	h.write(integrationPatch, patch)
	h.degraded("w1", "w2")
	res, err := h.rollout(rollout.Options{Approve: []string{"production"}})
	var se *rollout.StepError
	if !errors.As(err, &se) {
		t.Fatalf("want a *StepError, got %v", err)
	}
	var got []string
	for _, f := range se.Failures {
		got = append(got, f.Cluster)
	}
	slices.Sort(got)
	if d := cmp.Diff([]string{"w1", "w2"}, got); d != "" {
		t.Errorf("failures name both clusters (-want +got):\n%s", d)
	}
	if len(res.Steps) != 1 || h.exists("config/workload/demo/production/us-east1/patch-001.yaml") {
		t.Errorf("the patch went on past the budget: steps %v", res.Steps)
	}
}

// testWaveStep rolls out through integration's waves of [1, 100%] over
// three regions (ap-south1 has no cluster): the second wave enters
// eu-west1 and ap-south1 in one commit and one wait.
func testWaveStep(t *testing.T, h *harness) {
	h.setIntegration("{waves: [1, 100%]}", "[us-east1, eu-west1, ap-south1]")
	h.write(firstPatch, patch)
	res, err := h.rollout(rollout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != rollout.StoppedGate {
		t.Errorf("result %+v, want stopped at the gate", res)
	}
	want := []string{
		"rollout settings of integration",
		"Start patch-001 of workload/demo at integration/us-east1: 1 of 4 targets' rendered output changed",
		"Promote patch-001 of workload/demo to integration/eu-west1, integration/ap-south1 (wave 2 of 2 of integration), coalesce it at integration: 2 of 4 targets' rendered output changed",
	}
	if d := cmp.Diff(want, h.subjects()); d != "" {
		t.Errorf("commits (-want +got):\n%s", d)
	}
	var promoted []rollout.Event
	for _, e := range h.events {
		if e.Kind == rollout.KindPromoted {
			promoted = append(promoted, e)
		}
	}
	if len(promoted) != 2 || !cmp.Equal(promoted[1].Targets, []string{"workload/integration/ap-south1", "workload/integration/eu-west1"}) {
		t.Errorf("promoted events: %+v", promoted)
	}
	// Every event of the wave's step names its two nodes, not only the
	// first (its Step).
	wave := []string{"integration/eu-west1", "integration/ap-south1"}
	for _, e := range h.events {
		if e.Step == "integration/eu-west1" && !cmp.Equal(e.Nodes, wave) {
			t.Errorf("%s event of the wave names nodes %q, want %q", e.Kind, e.Nodes, wave)
		}
	}
}

// testTimeoutWithinBudget keeps w2 progressing: at the timeout it is the
// one cluster of the step not healthy, within maxUnhealthy: 50% of two,
// and the rollout goes on.
func testTimeoutWithinBudget(t *testing.T, h *harness) {
	h.setIntegration("{maxUnhealthy: 50%}", "[us-east1, eu-west1]")
	h.write(integrationPatch, patch)
	h.health = func(cluster, _ string) string {
		if cluster == "w2" {
			return "Progressing"
		}
		return ""
	}
	timeout := 5 * time.Minute
	stepped := false
	h.onEvent = func(e rollout.Event) {
		if e.Kind == rollout.KindWaiting && e.Synced == e.Total && !stepped {
			stepped = true
			h.clock.Step(timeout)
		}
	}
	res, err := h.rollout(rollout.Options{Timeout: &timeout})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != rollout.StoppedGate {
		t.Errorf("result %+v, want the gate", res)
	}
	i := slices.IndexFunc(h.events, func(e rollout.Event) bool { return e.Kind == rollout.KindUnhealthy })
	if i < 0 || len(h.events[i].Unhealthy) != 1 || h.events[i].Unhealthy[0].Cluster != "w2" ||
		h.events[i].Unhealthy[0].Reason != "synced: health Progressing" {
		t.Errorf("want an unhealthy event naming w2, progressing: %+v", h.events)
	}
}
