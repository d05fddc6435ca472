//go:build linux

package rollout_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/freeze"
	"github.com/strata-fleet/strata/internal/rollout"
)

// TestStopTheLine runs rollouts that a freeze or an alert stops, against
// the harness's API server, and Alertmanager and Prometheus played by
// httptest servers that speak their APIs.
func TestStopTheLine(t *testing.T) {
	api := startAPI(t)
	t.Run("a freeze made during a wait holds the next step until it is lifted", func(t *testing.T) { testFreezeHolds(t, newHarness(t, api)) })
	t.Run("a freeze pushed from another clone holds the rollout", func(t *testing.T) { testFreezeFromClone(t, newHarness(t, api)) })
	t.Run("an alert firing during the soak fails and reverts the step", func(t *testing.T) { testAlertDuringSoak(t, newHarness(t, api)) })
	t.Run("a Prometheus query that returns samples holds the next step", func(t *testing.T) { testQueryHolds(t, newHarness(t, api)) })
	t.Run("a Prometheus check that returns samples fails the step", func(t *testing.T) { testQueryCheck(t, newHarness(t, api)) })
	t.Run("a condition unreadable at the end of the soak does not let the step pass", func(t *testing.T) { testUnreadableAtSoakEnd(t, newHarness(t, api)) })
}

// testUnreadableAtSoakEnd: Alertmanager answers until the soak begins,
// then 500. The step soaks, but the last reading of its stopWhen cannot
// be made: the step does not pass (no check runs, no next step), and past
// the condition's grace (0s) the rollout ends with an *UnreadableError,
// neither passed nor failed (nothing reverted). hold.go let it pass.
func testUnreadableAtSoakEnd(t *testing.T, h *harness) {
	var broken atomic.Bool
	am := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if broken.Load() {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `"internal error"`)
			return
		}
		fmt.Fprint(w, "[]")
	}))
	t.Cleanup(am.Close)
	h.configure(fmt.Sprintf("  stopWhen: {name: critical, alertmanager: {url: '%s'}, grace: 0s}\n  checks: [{name: smoke, command: 'true'}]\n", am.URL), "")
	h.write(firstPatch, patch)
	soak := time.Minute
	h.onEvent = func(e rollout.Event) {
		if e.Kind == rollout.KindSoaking && !broken.Load() {
			broken.Store(true)
			h.clock.Step(soak)
		}
	}
	res, err := h.rollout(rollout.Options{Soak: &soak, Revert: true})
	var ue *rollout.UnreadableError
	if !errors.As(err, &ue) || ue.Condition != "critical" || !strings.Contains(ue.Reason, "500 Internal Server Error") {
		t.Fatalf("want an *UnreadableError of critical, got %v", err)
	}
	promoted := 0
	for _, e := range h.events {
		if e.Kind == rollout.KindPromoted {
			promoted++
		}
		if e.Kind == rollout.KindCheck || e.Kind == rollout.KindReverted || (e.Kind == rollout.KindPromoted && promoted > 1) {
			t.Errorf("the step went on past its unreadable condition: %+v", e)
		}
	}
	if !h.exists(firstPatch) || len(res.Steps) != 1 {
		t.Errorf("want the step kept as it is (steps %v)", res.Steps)
	}
}

var frozenAt = time.Date(2026, 11, 26, 13, 40, 0, 0, time.UTC)

// freezeIn commits (and pushes) config/freezes.yaml with freezes in the
// clone at dir, as strata freeze does.
func (h *harness) freezeIn(dir string, freezes ...freeze.Freeze) {
	h.t.Helper()
	full := filepath.Join(dir, filepath.FromSlash(freeze.File))
	if err := os.WriteFile(full, freeze.Encode(freezes), 0o644); err != nil {
		h.t.Fatal(err)
	}
	h.run(dir, "add", freeze.File)
	h.run(dir, "commit", "-q", "-m", fmt.Sprintf("freezes: %d", len(freezes)))
	h.run(dir, "push", "-q", "origin", "HEAD:main")
}

func testFreezeHolds(t *testing.T, h *harness) {
	h.write(firstPatch, patch)
	incident := freeze.Freeze{Node: "integration", By: "Ops <ops@example.com>", At: frozenAt, Reason: "INC-42: the database fails over"}
	var froze, unfroze bool
	h.onEvent = func(e rollout.Event) {
		switch {
		case e.Kind == rollout.KindStart && !froze:
			// The first step waits: a freeze now lets it finish.
			froze = true
			h.freezeIn(h.dir, incident)
		case e.Kind == rollout.KindHeld && !unfroze:
			unfroze = true
			h.freezeIn(h.dir)
			h.clock.Step(rollout.DefaultHoldEvery)
		}
	}
	res, err := h.rollout(rollout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != rollout.StoppedGate || len(res.Steps) != 2 {
		t.Errorf("result %+v, want two steps, then the gate", res)
	}
	want := []rollout.Kind{rollout.KindPromoted, rollout.KindStart, rollout.KindHealthy, rollout.KindHeld, rollout.KindPromoted, rollout.KindHealthy, rollout.KindGate}
	if got := h.kinds(); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	i := slices.IndexFunc(h.events, func(e rollout.Event) bool { return e.Kind == rollout.KindHeld })
	if i < 0 {
		t.Fatalf("never held: %v", h.kinds())
	}
	if msg := h.events[i].Message; msg != "no step starts into integration/eu-west1: integration is frozen by Ops <ops@example.com> since 2026-11-26T13:40:00Z: INC-42: the database fails over (config/freezes.yaml:6; strata unfreeze integration lifts it)" {
		t.Errorf("held: %s", msg)
	}
	subjects := h.subjects()
	if len(subjects) != 4 || subjects[1] != "freezes: 1" || subjects[2] != "freezes: 0" || !strings.HasPrefix(subjects[3], "Promote patch-001 of workload/demo to integration/eu-west1") {
		t.Errorf("commits %q: want the step into eu-west1 after the unfreeze", subjects)
	}
}

func testFreezeFromClone(t *testing.T, h *harness) {
	h.write(firstPatch, patch)
	other := filepath.Join(t.TempDir(), "other")
	h.run("", "clone", "-q", h.run(h.dir, "remote", "get-url", "origin"), other)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var froze bool
	h.onEvent = func(e rollout.Event) {
		switch {
		case e.Kind == rollout.KindStart && !froze:
			froze = true
			h.run(other, "pull", "-q")
			h.freezeIn(other, freeze.Freeze{By: "Ops <ops@example.com>", At: frozenAt, Reason: "change freeze"})
		case e.Kind == rollout.KindHeld:
			cancel()
		}
	}
	res, err := h.rolloutCtx(ctx, rollout.Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want the held rollout cancelled", err)
	}
	i := slices.IndexFunc(h.events, func(e rollout.Event) bool { return e.Kind == rollout.KindHeld })
	if i < 0 || !strings.Contains(h.events[i].Message, "the whole fleet is frozen by Ops <ops@example.com>") {
		t.Fatalf("no held event naming the freeze: %v", h.kinds())
	}
	if len(res.Steps) != 1 || h.exists("config/workload/demo/integration/eu-west1/patch-001.yaml") {
		t.Errorf("steps %v: the held rollout went on", res.Steps)
	}
}

// alertmanager plays an Alertmanager (API v2) whose alert HighErrorRate
// fires while firing is set.
func alertmanager(t *testing.T, firing *atomic.Bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if r.URL.Path != "/api/v2/alerts" || q.Get("silenced") != "false" || q.Get("inhibited") != "false" || q.Get("filter") != `severity="critical"` {
			t.Errorf("Alertmanager asked %s", r.URL)
			http.Error(w, `"bad request"`, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if !firing.Load() {
			fmt.Fprint(w, "[]")
			return
		}
		fmt.Fprint(w, `[{"annotations":{"summary":"5xx above 1%"},"endsAt":"2026-11-26T14:05:00Z","fingerprint":"a1b2c3d4e5f60718",
			"receivers":[{"name":"pager"}],"startsAt":"2026-11-26T13:40:00Z","updatedAt":"2026-11-26T13:41:00Z",
			"status":{"inhibitedBy":[],"silencedBy":[],"state":"active"},
			"labels":{"alertname":"HighErrorRate","cluster":"w1","severity":"critical"}}]`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// prometheus plays a Prometheus (API v1) whose query returns a sample
// while firing is set.
func prometheus(t *testing.T, firing *atomic.Bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/series" {
			// errors_total has series: an empty answer is "nothing wrong".
			fmt.Fprint(w, `{"status":"success","data":[{"__name__":"errors_total","cluster":"w1"}]}`)
			return
		}
		if r.URL.Path != "/api/v1/query" || r.FormValue("query") != "sum by (cluster) (rate(errors_total[5m])) > 1" {
			t.Errorf("Prometheus asked %s %q", r.URL, r.FormValue("query"))
		}
		w.Header().Set("Content-Type", "application/json")
		result := "[]"
		if firing.Load() {
			result = `[{"metric":{"cluster":"w1"},"value":[1764164400.781,"2.5"]}]`
		}
		fmt.Fprintf(w, `{"status":"success","data":{"resultType":"vector","result":%s}}`, result)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// configure adds rollout settings to config.yaml (at the top level, or on
// production) and commits them.
func (h *harness) configure(top, production string) {
	h.t.Helper()
	c := fixture["config/config.yaml"]
	if top != "" {
		c = strings.Replace(c, "cluster_types:", "rollout:\n"+top+"cluster_types:", 1)
	}
	if production != "" {
		c = strings.Replace(c, "      promotion: manual\n", "      promotion: manual\n      rollout:\n"+production, 1)
	}
	h.write("config/config.yaml", c)
	h.run(h.dir, "commit", "-qam", "rollout settings")
	h.run(h.dir, "push", "-q")
}

func testAlertDuringSoak(t *testing.T, h *harness) {
	var firing atomic.Bool
	am := alertmanager(t, &firing)
	h.configure(fmt.Sprintf("  stopWhen:\n    - name: critical\n      alertmanager: {url: '%s', matchers: ['severity=\"critical\"']}\n", am.URL), "")
	h.write(firstPatch, patch)
	h.onEvent = func(e rollout.Event) {
		if e.Kind == rollout.KindSoaking && !firing.Load() {
			firing.Store(true)
			h.clock.Step(fleet.DefaultStopEvery)
		}
	}
	soak := 10 * time.Minute
	res, err := h.rollout(rollout.Options{Soak: &soak, Revert: true})
	var se *rollout.StepError
	if !errors.As(err, &se) {
		t.Fatalf("want a *StepError, got %v", err)
	}
	if len(se.Failures) != 1 || se.Failures[0].Alert != "critical" || len(se.Failures[0].Alerts) != 1 ||
		se.Failures[0].Reason != `stopWhen critical holds during the step's wait or soak: HighErrorRate{cluster="w1", severity="critical"}: 5xx above 1%` {
		t.Errorf("failures: %+v", se.Failures)
	}
	if se.Reverted == "" || h.exists(firstPatch) || len(res.Steps) != 1 {
		t.Errorf("the step is not reverted (reverted %q, steps %v)", se.Reverted, res.Steps)
	}
	if !strings.Contains(err.Error(), "stopWhen critical holds") {
		t.Errorf("error: %v", err)
	}
}

func testQueryHolds(t *testing.T, h *harness) {
	var firing atomic.Bool
	firing.Store(true)
	prom := prometheus(t, &firing)
	h.configure("", fmt.Sprintf("        stopWhen:\n          prometheus: {url: '%s', query: 'sum by (cluster) (rate(errors_total[5m])) > 1'}\n", prom.URL))
	h.write(firstPatch, patch)
	h.onEvent = func(e rollout.Event) {
		if e.Kind == rollout.KindHeld && firing.Load() {
			firing.Store(false)
			h.clock.Step(rollout.DefaultHoldEvery)
		}
	}
	heldThenDone(t, h, "no step starts while stopWhen sum by (cluster) (rate(errors_total[5m])) > 1 holds: {cluster=\"w1\"} = 2.5")
}

// heldThenDone runs the rollout through production and checks that a
// query's sample of cluster w1 held the step into production, with a
// message that starts with held, and that the step came once it was gone.
func heldThenDone(t *testing.T, h *harness, held string) {
	t.Helper()
	res, err := h.rollout(rollout.Options{Approve: []string{"production"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != rollout.StoppedDone {
		t.Errorf("result %+v, want done", res)
	}
	i := slices.IndexFunc(h.events, func(e rollout.Event) bool { return e.Kind == rollout.KindHeld })
	if i < 0 {
		t.Fatalf("never held: %v", h.kinds())
	}
	e := h.events[i]
	if e.Step != "production/us-east1" || len(e.Alerts) != 1 || e.Alerts[0].Labels["cluster"] != "w1" || !strings.HasPrefix(e.Message, held) {
		t.Errorf("held event: %+v, want a message starting with %s", e, held)
	}
	if promoted := slices.IndexFunc(h.events[i:], func(e rollout.Event) bool { return e.Kind == rollout.KindPromoted }); promoted < 0 {
		t.Errorf("production was not promoted after the query stopped returning samples")
	}
}

func testQueryCheck(t *testing.T, h *harness) {
	var firing atomic.Bool
	firing.Store(true)
	prom := prometheus(t, &firing)
	h.configure(fmt.Sprintf("  checks:\n    - name: errors\n      prometheus: {url: '%s', query: 'sum by (cluster) (rate(errors_total[5m])) > 1'}\n", prom.URL), "")
	h.write(firstPatch, patch)
	_, err := h.rollout(rollout.Options{})
	var se *rollout.StepError
	if !errors.As(err, &se) {
		t.Fatalf("want a *StepError, got %v", err)
	}
	want := `the query sum by (cluster) (rate(errors_total[5m])) > 1 returned 1 samples: {cluster="w1"} = 2.5`
	if len(se.Failures) != 1 || se.Failures[0].Check != "errors" || se.Failures[0].Reason != want {
		t.Errorf("failures: %+v, want the check errors with %q", se.Failures, want)
	}
}
