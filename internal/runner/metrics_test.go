package runner

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/strata-fleet/strata/internal/rollout"
)

// TestMetrics feeds two patches' events and scrapes the metrics as
// Prometheus would, parsing its text format.
func TestMetrics(t *testing.T) {
	m := NewMetrics()
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	for _, e := range []rollout.Event{
		{Patch: "a", Kind: rollout.KindStart, Time: at(0)},
		{Patch: "a", Kind: rollout.KindPromoted, Time: at(1)},
		{Patch: "b", Kind: rollout.KindPromoted, Time: at(2)},
		{Patch: "a", Kind: rollout.KindWaiting, Time: at(5)},
		{Patch: "a", Kind: rollout.KindHealthy, Time: at(11)}, // a's step took 10 s
		{Patch: "a", Kind: rollout.KindSoaked, Time: at(71)},  // soaked: done at 71
		{Patch: "a", Kind: rollout.KindCheck, Passed: true, Time: at(72)},
		{Patch: "a", Kind: rollout.KindPromoted, Time: at(72.5)}, // reaction 0.5 s
		{Patch: "b", Kind: rollout.KindFailed, Time: at(80)},
		{Patch: "a", Kind: rollout.KindHealthy, Time: at(76.5)}, // 4 s
		{Patch: "a", Kind: rollout.KindDone, Time: at(77)},
	} {
		m.Observe(e)
	}
	m.inFlight.Set(1)
	m.SetLeader(true)
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()

	families := scrape(t, srv.URL+"/metrics")
	got := map[string]float64{}
	for name, f := range families {
		for _, s := range f.GetMetric() {
			switch {
			case s.GetCounter() != nil:
				key := name
				for _, l := range s.GetLabel() {
					key += "{" + l.GetName() + "=" + l.GetValue() + "}"
				}
				got[key] = s.GetCounter().GetValue()
			case s.GetGauge() != nil:
				got[name] = s.GetGauge().GetValue()
			case s.GetHistogram() != nil:
				got[name+"_count"] = float64(s.GetHistogram().GetSampleCount())
				got[name+"_sum"] = s.GetHistogram().GetSampleSum()
			}
		}
	}
	want := map[string]float64{
		"strata_rollouts_in_flight":                   1,
		"strata_rollout_steps_total":                  3,
		"strata_rollout_step_duration_seconds_count":  2,
		"strata_rollout_step_duration_seconds_sum":    14,
		"strata_rollout_failures_total{reason=step}":  1,
		"strata_rollout_failures_total{reason=error}": 0,
		"strata_rollout_reaction_seconds_count":       1,
		"strata_rollout_reaction_seconds_sum":         0.5,
		"strata_runner_leader":                        1,
		"strata_runner_healthy":                       1,
		"strata_rollout_step_wait_seconds":            0, // a's step healthy, b's failed
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("metrics (-want +got):\n%s", d)
	}
}

// TestStepWait: the step waiting longest since its push, until it is
// healthy or fails; the health gauge follows /healthz.
func TestStepWait(t *testing.T) {
	m := NewMetrics()
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	now := t0
	m.now = func() time.Time { return now }
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	gauge := func(name string) float64 {
		t.Helper()
		f := scrape(t, srv.URL+"/metrics")[name]
		if f == nil {
			t.Fatalf("no %s", name)
		}
		return f.GetMetric()[0].GetGauge().GetValue()
	}
	m.Observe(rollout.Event{Patch: "a", Kind: rollout.KindPromoted, Time: t0})
	m.Observe(rollout.Event{Patch: "b", Kind: rollout.KindPromoted, Time: t0.Add(time.Minute)})
	now = t0.Add(20 * time.Minute)
	if got := gauge("strata_rollout_step_wait_seconds"); got != 1200 {
		t.Errorf("a waits 20m: got %v s", got)
	}
	m.Observe(rollout.Event{Patch: "a", Kind: rollout.KindHealthy, Time: now})
	if got := gauge("strata_rollout_step_wait_seconds"); got != 1140 {
		t.Errorf("a healthy, b waits 19m: got %v s", got)
	}
	m.Observe(rollout.Event{Patch: "b", Kind: rollout.KindFailed, Time: now})
	if got := gauge("strata_rollout_step_wait_seconds"); got != 0 {
		t.Errorf("none waits: got %v s", got)
	}
	m.setHealth(errors.New("fetching: no route to host"))
	if got := gauge("strata_runner_healthy"); got != 0 {
		t.Errorf("unhealthy: strata_runner_healthy %v", got)
	}
}

func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing %s: %v", url, err)
	}
	return families
}

// TestHealthz: 200 while the runner's last look for patches worked, 503
// with the reason when it did not.
func TestHealthz(t *testing.T) {
	m := NewMetrics()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	get := func() (int, string) {
		resp, err := http.Get(srv.URL + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, body := get(); code != http.StatusOK || body != "ok\n" {
		t.Errorf("healthy: %d %q", code, body)
	}
	m.setHealth(errors.New("fetching: could not read from remote repository"))
	if code, body := get(); code != http.StatusServiceUnavailable || body != "fetching: could not read from remote repository\n" {
		t.Errorf("unhealthy: %d %q", code, body)
	}
}
