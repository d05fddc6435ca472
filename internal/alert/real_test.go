package alert_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/alert"
	"github.com/strata-fleet/strata/internal/testing/promenv"
)

// The tests below run the clients against a real Alertmanager and a real
// Prometheus (package promenv, built by hack/build-prom.sh); they are
// skipped under -short and where the binaries are not built.

// An alert posted to Alertmanager fires for strata when it matches every
// matcher and is neither silenced nor a non-match; a matcher
// Alertmanager cannot parse is its 400 and message, not "no alert".
func TestRealAlertmanager(t *testing.T) {
	am := promenv.StartAlertmanager(t)
	ctx := context.Background()
	critical := []string{`severity="critical"`, `cluster=~"w.*"`}
	got, err := alert.Client{}.Firing(ctx, am.URL, critical)
	if err != nil || len(got) != 0 {
		t.Fatalf("before any alert: %v, %v; want none", got, err)
	}

	am.Silence(t, map[string]string{"alertname": "Silenced"})
	am.Fire(t,
		promenv.Alert{Labels: map[string]string{"alertname": "HighErrorRate", "severity": "critical", "cluster": "w1"},
			Annotations: map[string]string{"summary": "5xx above 1%"}},
		promenv.Alert{Labels: map[string]string{"alertname": "Silenced", "severity": "critical", "cluster": "w1"}},
		promenv.Alert{Labels: map[string]string{"alertname": "Minor", "severity": "warning", "cluster": "w1"}},
		promenv.Alert{Labels: map[string]string{"alertname": "Elsewhere", "severity": "critical", "cluster": "e1"}})
	got, err = alert.Client{}.Firing(ctx, am.URL, critical)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].String() != `HighErrorRate{cluster="w1", severity="critical"}: 5xx above 1%` || got[0].Since.IsZero() {
		t.Errorf("firing: %v, want HighErrorRate alone with its start (Silenced is silenced, Minor and Elsewhere do not match)", got)
	}
	got, err = alert.Client{}.Firing(ctx, am.URL, []string{`severity="warning"`})
	if err != nil || alert.Describe(got) != `Minor{cluster="w1", severity="warning"}` {
		t.Errorf("warnings: %v, %v; want Minor", got, err)
	}

	_, err = alert.Client{}.Firing(ctx, am.URL, []string{"severity"})
	if err == nil || !strings.HasPrefix(err.Error(), "Alertmanager "+am.URL+": 400 Bad Request: ") {
		t.Errorf("a bad matcher: %v, want Alertmanager's 400 and message", err)
	}
	am.Process.Stop()
	_, err = alert.Client{}.Firing(ctx, am.URL, critical)
	if err == nil || !strings.HasPrefix(err.Error(), "Alertmanager "+am.URL+": ") || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("Alertmanager stopped: %v, want the connection refused", err)
	}
}

// metrics serves a gauge, strata_test_errors{cluster="w1"}, at /metrics
// in Prometheus's text format, for a real Prometheus to scrape.
func metrics(t *testing.T, value *atomic.Int64) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		fmt.Fprintf(w, "# TYPE strata_test_errors gauge\nstrata_test_errors{cluster=\"w1\"} %d\n", value.Load())
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// A query over what Prometheus scraped returns samples while the errors
// are high (trouble, named by their labels), none once they are gone; a
// query Prometheus rejects, a range vector, a query over a metric that has
// no series and a Prometheus that is down are errors with their reasons,
// never "no samples".
func TestRealPrometheus(t *testing.T) {
	var errors atomic.Int64
	errors.Store(7)
	target := metrics(t, &errors)
	prom := promenv.StartPrometheus(t, target)
	prom.WaitFor(t, `strata_test_errors == 7`, time.Minute)
	ctx := context.Background()

	const query = `strata_test_errors > 5`
	got, err := alert.Client{}.Query(ctx, prom.URL, query)
	if err != nil {
		t.Fatal(err)
	}
	want := []alert.Alert{{Name: "strata_test_errors", Labels: map[string]string{"cluster": "w1", "instance": target, "job": "test"}, Value: "7"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("samples while errors are high (-want +got):\n%s", d)
	}

	errors.Store(0)
	prom.WaitFor(t, `strata_test_errors == 0`, time.Minute)
	if got, err := (alert.Client{}).Query(ctx, prom.URL, query); err != nil || len(got) != 0 {
		t.Errorf("once errors are gone: %v, %v; want no sample", got, err)
	}

	for _, tt := range []struct{ query, err string }{
		{`strata_test_error > 5`, `matches no series: Prometheus has none of {__name__="strata_test_error"}`},
		{`sum(`, `Prometheus ` + prom.URL + `: bad_data: invalid parameter "query": `},
		{`strata_test_errors[1m]`, `returns a matrix, not an instant vector`},
		{`label_replace(strata_test_errors, "a", "b", "c", "(")`, `execution: invalid regular expression in label_replace(): (`},
	} {
		if got, err := (alert.Client{}).Query(ctx, prom.URL, tt.query); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: %v, %v; want an error with %q", tt.query, got, err, tt.err)
		}
	}

	prom.Process.Stop()
	_, err = alert.Client{}.Query(ctx, prom.URL, query)
	if err == nil || !strings.HasPrefix(err.Error(), "Prometheus "+prom.URL+": ") || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("Prometheus stopped: %v, want the connection refused", err)
	}
}
