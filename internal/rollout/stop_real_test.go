//go:build linux

package rollout_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/rollout"
	"github.com/strata-fleet/strata/internal/testing/promenv"
)

// TestStopTheLineReal runs stopWhen and a Prometheus check against a real
// Alertmanager and a real Prometheus (package promenv), Argo CD being the
// harness's, on a real kube-apiserver.
func TestStopTheLineReal(t *testing.T) {
	am := promenv.StartAlertmanager(t)
	var errs atomic.Int64
	errs.Store(3)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "# TYPE errors gauge\nerrors{cluster=\"w1\"} %d\n", errs.Load())
	}))
	t.Cleanup(srv.Close)
	prom := promenv.StartPrometheus(t, strings.TrimPrefix(srv.URL, "http://"))
	prom.WaitFor(t, "errors == 3", time.Minute)
	api := startAPI(t)
	t.Run("an alert posted to Alertmanager during the soak fails and reverts the step", func(t *testing.T) {
		testRealAlert(t, newHarness(t, api), am)
	})
	t.Run("a query that returns samples holds the next step until it returns none", func(t *testing.T) {
		testRealQuery(t, newHarness(t, api), prom, &errs)
	})
}

func testRealAlert(t *testing.T, h *harness, am *promenv.Alertmanager) {
	h.configure(fmt.Sprintf("  stopWhen:\n    - name: critical\n      alertmanager: {url: '%s', matchers: ['severity=\"critical\"', 'team=\"fleet\"']}\n", am.URL), "")
	// Firing, but silenced or not matching: the step goes on.
	am.Silence(t, map[string]string{"alertname": "Known"})
	am.Fire(t, promenv.Alert{Labels: map[string]string{"alertname": "Known", "severity": "critical", "team": "fleet"}},
		promenv.Alert{Labels: map[string]string{"alertname": "OtherTeam", "severity": "critical", "team": "db"}})
	h.write(firstPatch, patch)
	fired := false
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h.onEvent = func(e rollout.Event) {
		if e.Kind == rollout.KindHeld {
			t.Errorf("held by an alert that is silenced or does not match: %s", e.Message)
			cancel()
		}
		if e.Kind == rollout.KindSoaking && !fired {
			fired = true
			am.Fire(t, promenv.Alert{Labels: map[string]string{"alertname": "HighErrorRate", "severity": "critical", "team": "fleet", "cluster": "w1"},
				Annotations: map[string]string{"summary": "5xx above 1%"}})
			h.clock.Step(fleet.DefaultStopEvery)
		}
	}
	soak := 10 * time.Minute
	res, err := h.rolloutCtx(ctx, rollout.Options{Soak: &soak, Revert: true})
	var se *rollout.StepError
	if !errors.As(err, &se) {
		t.Fatalf("want a *StepError, got %v (events %v)", err, h.kinds())
	}
	want := `stopWhen critical holds during the step's wait or soak: HighErrorRate{cluster="w1", severity="critical", team="fleet"}: 5xx above 1%`
	if len(se.Failures) != 1 || se.Failures[0].Alert != "critical" || se.Failures[0].Reason != want {
		t.Errorf("failures: %+v, want %q", se.Failures, want)
	}
	if se.Reverted == "" || h.exists(firstPatch) || len(res.Steps) != 1 {
		t.Errorf("the step is not reverted (reverted %q, steps %v)", se.Reverted, res.Steps)
	}
}

func testRealQuery(t *testing.T, h *harness, prom *promenv.Prometheus, errs *atomic.Int64) {
	const query = `errors{job="test"} > 1`
	h.configure("", fmt.Sprintf("        stopWhen:\n          prometheus: {url: '%s', query: '%s'}\n", prom.URL, query))
	h.write(firstPatch, patch)
	h.onEvent = func(e rollout.Event) {
		if e.Kind == rollout.KindHeld && errs.Load() > 1 {
			errs.Store(0)
			prom.WaitFor(t, "errors == 0", time.Minute)
			h.clock.Step(rollout.DefaultHoldEvery)
		}
	}
	heldThenDone(t, h, `no step starts while stopWhen `+query+` holds: errors{cluster="w1", instance=`)
}
