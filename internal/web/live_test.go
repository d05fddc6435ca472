package web_test

import (
	"context"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/testing/testfleet"
	"github.com/strata-fleet/strata/internal/web"
)

// TestLiveColumns: with Options.Live the matrix shows what Argo CD says of
// each cell, and the generation moves when that changes, so that open
// pages refresh.
func TestLiveColumns(t *testing.T) {
	dir := t.TempDir()
	if err := testfleet.Write(dir); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	var mu sync.Mutex
	state, reads := live.Healthy, make(chan struct{}, 100)
	liveFn := func(ctx context.Context, r *render.Renderer) (*live.Report, error) {
		mu.Lock()
		defer mu.Unlock()
		defer func() {
			select {
			case reads <- struct{}{}:
			default: // the test has enough to read
			}
		}()
		e := live.Expected{ArgoCD: "mc-1", Cluster: "mc-1", ClusterType: "management-cluster", Target: "production/prod-sector-1/us-east1",
			Component: "cert-manager", Kind: "Application", Name: "cert-manager"}
		app := live.AppState{Expected: e, State: state}
		if state == live.Failed {
			app.Reason = "sync failed: the webhook refused it"
		}
		return &live.Report{
			ArgoCDs: []*live.Instance{{Cluster: "mc-1", Namespace: "argocd"}, {Cluster: "mc-2", Namespace: "argocd", Error: "connection refused"}},
			Cells:   []live.Cell{{ClusterType: e.ClusterType, Target: e.Target, Component: e.Component, State: state, Apps: []live.AppState{app}}},
		}, nil
	}
	s := web.New(web.Options{Dir: dir, FS: root.FS(), Live: liveFn, LiveInterval: 20 * time.Millisecond, Interval: time.Hour})
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gen := s.Generation()
	go s.Watch(ctx)
	// A read signals before its report is stored: wait for the generation.
	waitGeneration(t, s, gen, reads)

	_, body := get(t, ts, "/")
	for _, want := range []string{`<span class="live live-healthy">healthy</span>`, "Live state", "unreachable: mc-2: connection refused"} {
		if !strings.Contains(body, want) {
			t.Errorf("the matrix page lacks %q", want)
		}
	}
	gen = s.Generation()
	mu.Lock()
	state = live.Failed
	mu.Unlock()
	waitGeneration(t, s, gen, reads)
	_, body = get(t, ts, "/")
	for _, want := range []string{`<span class="live live-failed">failed</span>`, "Application cert-manager on mc-1: failed (sync failed: the webhook refused it)"} {
		if !strings.Contains(body, want) {
			t.Errorf("after the change, the matrix page lacks %q", want)
		}
	}
	_, api := get(t, ts, "/api/status")
	if !strings.Contains(api, `"state": "failed"`) {
		t.Errorf("/api/status lacks the live state:\n%.400s", api)
	}
}

// waitGeneration waits, read by read, until s's generation is no longer gen.
func waitGeneration(t *testing.T, s *web.Server, gen int, reads <-chan struct{}) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for s.Generation() == gen {
		select {
		case <-reads:
		case <-deadline:
			t.Fatal("the generation did not move when the live state changed")
		}
	}
}
