package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/fleet"
	gitpkg "github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/output"
	"github.com/strata-fleet/strata/internal/record"
	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/testing/testfleet"
	"github.com/strata-fleet/strata/internal/testing/testgit"
	"github.com/strata-fleet/strata/internal/web"
)

// TestRolloutsInFlight: the matrix page and /api/status show where each
// rollout in flight stands, from the repository's Git history read at the
// request: a revert of a step with its reason, a freeze that holds the
// next step.
func TestRolloutsInFlight(t *testing.T) {
	dir, git := gitFleet(t)
	p := filepath.Join(dir, "config/management-cluster/cert-manager/stage/stage-sector-1/patch-001.yaml")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	// A step of strata's, reverted, and strata's record of the revert (a
	// revert it did not record would be no failure).
	write(t, p, string(data)+"# the step\n")
	git("add", ".")
	git("commit", "-q", "-m", "Promote patch-001 to stage/stage-sector-2", "-m", "Strata-Rollout: management-cluster/cert-manager/patch-001")
	step := git("rev-parse", "HEAD")
	write(t, p, string(data)+"# back at stage-sector-1\n")
	git("add", ".")
	git("commit", "-q", "-m", `Revert "Promote patch-001 to stage/stage-sector-2"`)
	revert := git("rev-parse", "HEAD")
	ctx := context.Background()
	g := gitpkg.Exec{Dir: dir, Env: testgit.Env}
	e := record.Entry{Kind: record.KindReverted, Patch: "management-cluster/cert-manager/patch-001", Node: "stage/stage-sector-2",
		Step: step, Revert: revert, Failures: []string{"stage/stage-sector-2: Application cert-manager on mc-stage2: sync failed"}}
	if e.Tree, err = record.TreeOf(ctx, g, step, nil); err != nil {
		t.Fatal(err)
	}
	if e.PatchFiles, err = record.FilesOf(ctx, g, revert, e.Patch); err != nil {
		t.Fatal(err)
	}
	if err := (&record.Log{Git: g, Dir: dir}).Append(ctx, e); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "config/freezes.yaml"), "freezes:\n  - {node: stage, by: Jane <jane@example.com>, at: 2026-11-26T12:30:00Z, reason: 'INC-42: failover'}\n")
	_, ts, _ := serveDir(t, dir)

	code, body := get(t, ts, "/")
	for _, want := range []string{
		"<h2>Rollouts in flight</h2>",
		`<a class="patch-link" href="/patch/management-cluster/cert-manager/patch-001">management-cluster/cert-manager/patch-001</a>`,
		"reverted in " + revert[:12] + ": stage/stage-sector-2: Application cert-manager on mc-stage2: sync failed",
		"freeze of stage by Jane <jane@example.com>: INC-42: failover",
	} {
		if !strings.Contains(html.UnescapeString(body), want) {
			t.Errorf("GET /: %d, the page lacks %q", code, want)
		}
	}
	_, body = get(t, ts, "/api/status")
	var st struct {
		Rollouts []struct {
			Patch string
			Step  struct{ Commit string }
		}
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Rollouts) != 3 || st.Rollouts[0].Patch != "management-cluster/cert-manager/patch-001" || st.Rollouts[0].Step.Commit != revert {
		t.Errorf("GET /api/status: rollouts %+v, want 3, the first's step %s", st.Rollouts, revert)
	}
}

// TestRolloutsInFlightLive: with Options.Live, the rollouts in flight wait
// for the Applications at the patch's locations and name a failed one.
func TestRolloutsInFlightLive(t *testing.T) {
	dir := t.TempDir()
	if err := testfleet.Write(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "config/clusters"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "config/clusters/mc-int.yaml"), "type: management-cluster\ntarget: integration/int-sector-1/us-central1\n")
	// An Alertmanager whose alert holds every next step; the pages read it
	// once per its interval (every: 1h), not at each request.
	var asked atomic.Int32
	am := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `[{"labels":{"alertname":"HighErrorRate","severity":"critical"},"startsAt":"2026-11-26T13:40:00Z","status":{"state":"active"}}]`)
	}))
	t.Cleanup(am.Close)
	config := filepath.Join(dir, "config/config.yaml")
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	write(t, config, string(data)+"rollout:\n  stopWhen: [{name: errors, every: 1h, alertmanager: {url: "+am.URL+", matchers: ['severity=\"critical\"']}}]\n")
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	reads := make(chan struct{}, 100)
	liveFn := func(ctx context.Context, r *render.Renderer) (*live.Report, error) {
		defer func() {
			select {
			case reads <- struct{}{}:
			default:
			}
		}()
		e := live.Expected{ArgoCD: "mc-int", Cluster: "mc-int", ClusterType: "management-cluster", Target: "integration/int-sector-1/us-central1",
			Component: "cert-manager", Kind: "Application", Name: "cert-manager"}
		app := live.AppState{Expected: e, State: live.Failed, Reason: "sync failed: the webhook refused it"}
		return &live.Report{ArgoCDs: []*live.Instance{{Cluster: "mc-int", Namespace: "argocd"}},
			Cells: []live.Cell{{ClusterType: e.ClusterType, Target: e.Target, Component: e.Component, State: app.State, Apps: []live.AppState{app}}}}, nil
	}
	s := web.New(web.Options{Dir: dir, FS: root.FS(), Live: liveFn, LiveInterval: 20 * time.Millisecond, Interval: time.Hour})
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gen := s.Generation()
	go s.Watch(ctx)
	waitGeneration(t, s, gen, reads)
	_, body := get(t, ts, "/")
	for _, want := range []string{
		`<td>1 of 1 Applications to be synced and healthy</td>`,
		`<td class="problem">cert-manager on mc-int is failed: sync failed: the webhook refused it</td>`,
		`stopWhen errors: HighErrorRate`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the matrix page lacks %q", want)
		}
	}
	get(t, ts, "/")
	get(t, ts, "/api/status")
	if n := asked.Load(); n != 1 {
		t.Errorf("three pages asked the Alertmanager %d times, want once (its interval is 1h)", n)
	}
}

// TestRolloutsWaitForRender: a patch committed without strata render is
// not delivered where it is, and the matrix page and /api/status say it
// waits for strata render, as status does (a "render" wait, from the
// render's check). The check runs once while nothing changes, whatever
// the requests, and again once HEAD moves.
func TestRolloutsWaitForRender(t *testing.T) {
	t.Setenv("STRATA_CACHE_DIR", t.TempDir())
	dir, git := gitFleet(t)
	if _, err := output.Run(output.Options{Root: dir}); err != nil {
		t.Fatal(err)
	}
	git("add", ".")
	git("commit", "-q", "-m", "rendered")
	p := filepath.Join(dir, "config/management-cluster/cert-manager/stage/stage-sector-1/patch-001.yaml")
	write(t, p, "applications:\n  cert-manager:\n    source:\n      targetRevision: \"v1.19.1\"\n")
	git("commit", "-q", "-am", "patch-001 at v1.19.1, not rendered")
	var checks atomic.Int32
	_, ts, _ := serveWith(t, web.Options{Dir: dir, Unrendered: func(cfg *fleet.Config, dirs []string) ([]string, error) {
		checks.Add(1)
		return (&action.Step{Dir: dir}).UnrenderedIn(cfg, dirs)
	}})
	want := "strata render: rendered/ does not follow config/ for management-cluster/stage/stage-sector-1"
	for range 3 {
		if _, body := get(t, ts, "/"); !strings.Contains(html.UnescapeString(body), want) {
			t.Fatalf("GET /: the page lacks %q", want)
		}
	}
	_, body := get(t, ts, "/api/status")
	var st struct {
		Rollouts []struct {
			Patch string
			Waits []struct{ Kind, Node string }
		}
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatal(err)
	}
	waits := map[string]string{}
	for _, r := range st.Rollouts {
		for _, w := range r.Waits {
			if w.Kind == "render" {
				waits[r.Patch] = w.Node
			}
		}
	}
	// patch-002, at stage-sector-1/us-east1, is under the same targets.
	if diff := cmp.Diff(map[string]string{"management-cluster/cert-manager/patch-001": "stage/stage-sector-1",
		"management-cluster/cert-manager/patch-002": "stage/stage-sector-1/us-east1"}, waits); diff != "" {
		t.Errorf("/api/status: the render waits (-want +got):\n%s", diff)
	}
	first := checks.Load()
	if first == 0 {
		t.Fatal("the render's check never ran")
	}
	if _, _ = get(t, ts, "/"); checks.Load() != first {
		t.Errorf("the render's check ran %d times for 5 requests, %d for the first: its answers were not kept", checks.Load(), first)
	}
	// Rendered and committed: HEAD moved, the check runs again, no wait.
	if _, err := output.Run(output.Options{Root: dir}); err != nil {
		t.Fatal(err)
	}
	git("add", ".")
	git("commit", "-q", "-m", "rendered again")
	if _, body := get(t, ts, "/"); strings.Contains(html.UnescapeString(body), "strata render: rendered/") {
		t.Errorf("GET /: the render wait is still shown once rendered/ follows config/")
	}
	if checks.Load() == first {
		t.Errorf("the render's check did not run again once HEAD moved")
	}
}
