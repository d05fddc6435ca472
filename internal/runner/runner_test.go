//go:build linux

package runner_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-fleet/strata/internal/lock"
	"github.com/strata-fleet/strata/internal/output"
	"github.com/strata-fleet/strata/internal/rollout"
	"github.com/strata-fleet/strata/internal/runner"
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

var gitEnv = []string{
	"GIT_AUTHOR_NAME=strata test", "GIT_AUTHOR_EMAIL=test@strata.invalid",
	"GIT_COMMITTER_NAME=strata test", "GIT_COMMITTER_EMAIL=test@strata.invalid",
	"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), gitEnv...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func write(t *testing.T, dir, p, data string) {
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
	bare, dir, other := filepath.Join(t.TempDir(), "remote.git"), filepath.Join(t.TempDir(), "fleet"), filepath.Join(t.TempDir(), "other")
	git(t, "", "init", "-q", "--bare", "-b", "main", bare)
	git(t, "", "init", "-q", "-b", "main", dir)
	for p, data := range fleetFiles {
		write(t, dir, p, data)
	}
	if _, err := output.Run(output.Options{Root: dir, FS: os.DirFS(dir)}); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "the fleet")
	git(t, dir, "remote", "add", "origin", bare)
	git(t, dir, "push", "-q", "-u", "origin", "main")
	git(t, "", "clone", "-q", bare, other)

	events := make(chan rollout.Event, 1000)
	m := runner.NewMetrics()
	env := rollout.Env{Dir: dir, Git: rollout.ExecGit{Dir: dir, Env: gitEnv}, Events: func(e rollout.Event) { events <- e },
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
		git(t, other, "pull", "-q", "--ff-only")
		write(t, other, "config/workload/demo/integration/us-east1/"+patch+".yaml", "applications:\n  demo:\n    source: {targetRevision: 1.1.0}\n")
		git(t, other, "add", "-A")
		git(t, other, "commit", "-q", "-m", "start "+patch)
		git(t, other, "push", "-q", "origin", "main")
	}
	// gate waits for patch's rollout to stop at production's gate.
	gate := func(patch string) {
		t.Helper()
		timeout := time.After(time.Minute)
		for {
			select {
			case e := <-events:
				if e.Kind == rollout.KindFailed {
					t.Fatalf("%s failed: %+v", e.Patch, e.Failures)
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
	if !strings.Contains(families, "strata_rollout_steps_total 2\n") {
		t.Errorf("want two steps (one per patch: into eu-west1) counted:\n%s", families)
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
