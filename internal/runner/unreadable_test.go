//go:build linux

package runner_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/output"
	"github.com/strata-fleet/strata/internal/rollout"
	"github.com/strata-fleet/strata/internal/runner"
	"github.com/strata-fleet/strata/internal/testing/testgit"
)

// A stopWhen Alertmanager that answers 500 holds the runner's rollout,
// and past the condition's grace /healthz answers 503 naming it (it
// answered 200 while the rollout was held for ever); once Alertmanager
// answers again the rollout goes on and /healthz is 200.
func TestHealthzUnreadableCondition(t *testing.T) {
	t.Setenv("STRATA_CACHE_DIR", t.TempDir())
	var broken atomic.Bool
	broken.Store(true)
	am := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if broken.Load() {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `"internal error"`)
			return
		}
		fmt.Fprint(w, "[]")
	}))
	defer am.Close()

	dir := filepath.Join(t.TempDir(), "fleet")
	for p, data := range fleetFiles {
		if p == "config/config.yaml" {
			data = strings.Replace(data, "rollout: {watch: false}",
				fmt.Sprintf("rollout:\n  watch: false\n  stopWhen: {name: critical, alertmanager: {url: '%s'}, grace: 0s}", am.URL), 1)
		}
		write(t, dir, p, data)
	}
	write(t, dir, "config/workload/demo/integration/us-east1/patch-001.yaml", "applications:\n  demo:\n    source: {targetRevision: 1.1.0}\n")
	if _, err := output.Run(output.Options{Root: dir, FS: os.DirFS(dir)}); err != nil {
		t.Fatal(err)
	}
	testgit.Remote(t, dir)

	events := make(chan rollout.Event, 1000)
	ended := make(chan rollout.PatchResult, 100)
	m := runner.NewMetrics()
	env := rollout.Env{Dir: dir, Git: git.Exec{Dir: dir, Env: testgit.Env}, Events: func(e rollout.Event) { events <- e }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- runner.Run(ctx, runner.Options{Env: env, Interval: 50 * time.Millisecond, Metrics: m,
			Ended: func(pr rollout.PatchResult) { ended <- pr }})
	}()
	defer func() { cancel(); <-done }()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()

	deadline := time.After(time.Minute)
	for {
		select {
		case pr := <-ended:
			var ue *rollout.UnreadableError
			if !errors.As(pr.Err, &ue) {
				t.Fatalf("the rollout ended with %v, want an *UnreadableError", pr.Err)
			}
		case e := <-events:
			if e.Kind == rollout.KindPromoted {
				t.Fatalf("a step was taken while stopWhen could not be read: %+v", e)
			}
			continue
		case <-deadline:
			t.Fatal("the rollout did not end on the unreadable condition within a minute")
		}
		break
	}
	code, body := healthz(t, srv.URL)
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "workload/demo/patch-001: stopWhen critical cannot be read") ||
		!strings.Contains(body, "500 Internal Server Error: internal error") {
		t.Errorf("/healthz: %d %q, want 503 naming the patch, the condition and Alertmanager's answer", code, body)
	}

	broken.Store(false)
	for {
		select {
		case e := <-events:
			if e.Kind != rollout.KindGate {
				continue
			}
		case <-ended:
			continue
		case <-deadline:
			t.Fatal("the rollout did not reach the gate within a minute once Alertmanager answered")
		}
		break
	}
	if code, body := healthz(t, srv.URL); code != http.StatusOK {
		t.Errorf("/healthz once the condition reads clear: %d %q, want 200", code, body)
	}
}

func healthz(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}
