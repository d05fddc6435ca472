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
	"testing"
	"time"

	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/lock"
	"github.com/strata-fleet/strata/internal/output"
	"github.com/strata-fleet/strata/internal/rollout"
	"github.com/strata-fleet/strata/internal/runner"
	"github.com/strata-fleet/strata/internal/testing/testgit"
)

// A fleet whose nodes have nothing to watch (rollout: {watch: false}):
// the runner's rollouts take their steps without an Argo CD.
var fleetFiles = map[string]string{
	"config/config.yaml": `dimensions: [environments, regions]
repository: {url: https://git.example.com/fleet.git, revision: main}
promotion: {level: regions}
rollout: {watch: false}
sequence:
  environments:
    - name: integration
      regions: [us-east1, eu-west1]
    - name: production
      promotion: manual
      regions: [us-east1]
cluster_types: [workload]
`,
	"config/workload/defaults.yaml": "applications:\n  default:\n    project: default\n",
	"config/workload/demo/values.yaml": `applications:
  demo:
    source: {repoURL: https://charts.example.com, chart: demo, targetRevision: 1.0.0}
    destination: {server: https://kubernetes.default.svc, namespace: demo}
`,
}

func write(t testing.TB, dir, p, data string) {
	t.Helper()
	full := filepath.Join(dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRunPicksUpPatches: a runner started on a fleet with no patch rolls
// out each patch someone pushes to the remote afterwards, up to the
// manual gate, and counts the steps.
func TestRunPicksUpPatches(t *testing.T) {
	t.Setenv("STRATA_CACHE_DIR", t.TempDir())
	dir, other := filepath.Join(t.TempDir(), "fleet"), filepath.Join(t.TempDir(), "other")
	for p, data := range fleetFiles {
		write(t, dir, p, data)
	}
	if _, err := output.Run(output.Options{Root: dir, FS: os.DirFS(dir)}); err != nil {
		t.Fatal(err)
	}
	bare := testgit.Remote(t, dir)
	testgit.Run(t, "", "clone", "-q", bare, other)

	events := make(chan rollout.Event, 1000)
	m := runner.NewMetrics()
	env := rollout.Env{Dir: dir, Git: git.Exec{Dir: dir, Env: testgit.Env}, Events: func(e rollout.Event) { events <- e },
		Lock: func(ctx context.Context) (func(), error) {
			l, err := lock.Acquire(ctx, dir, lock.Options{Command: "runner test", Wait: time.Minute})
			if err != nil {
				return nil, err
			}
			return func() { l.Release() }, nil
		}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- runner.Run(ctx, runner.Options{Env: env, Interval: 50 * time.Millisecond, Metrics: m,
			Ended: func(pr rollout.PatchResult) {
				if pr.Err != nil {
					t.Logf("%s: %v", pr.Patch, pr.Err)
				}
			}})
	}()
	defer func() { cancel(); <-done }()

	push := func(patch string) {
		t.Helper()
		testgit.Run(t, other, "pull", "-q", "--ff-only")
		write(t, other, "config/workload/demo/integration/us-east1/"+patch+".yaml", "applications:\n  demo:\n    source: {targetRevision: 1.1.0}\n")
		testgit.Run(t, other, "add", "-A")
		testgit.Run(t, other, "commit", "-q", "-m", "start "+patch)
		testgit.Run(t, other, "push", "-q", "origin", "main")
	}
	// gate waits for patch's rollout to stop at production's gate,
	// counting the steps pushed.
	promoted := 0
	gate := func(patch string) {
		t.Helper()
		timeout := time.After(time.Minute)
		for {
			select {
			case e := <-events:
				if e.Kind == rollout.KindFailed {
					t.Fatalf("%s failed: %+v", e.Patch, e.Failures)
				}
				if e.Kind == rollout.KindPromoted {
					promoted++
				}
				if e.Kind == rollout.KindGate && e.Patch == "workload/demo/"+patch {
					return
				}
			case <-timeout:
				t.Fatalf("%s did not reach the gate within a minute", patch)
			}
		}
	}
	push("patch-001")
	gate("patch-001")
	push("patch-002")
	gate("patch-002")

	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run ended with %v, want context.Canceled", err)
	}
	done <- nil
	families := scrapeText(t, m)
	// Each first copy is pushed without render: its render may be a
	// step of its own before the one into eu-west1. The metric counts
	// every step pushed.
	if want := fmt.Sprintf("strata_rollout_steps_total %d\n", promoted); promoted < 2 || !strings.Contains(families, want) {
		t.Errorf("want the %d steps pushed (at least one per patch: into eu-west1) counted:\n%s", promoted, families)
	}
}

// scrapeText is what m serves at /metrics.
func scrapeText(t *testing.T, m *runner.Metrics) string {
	t.Helper()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}
