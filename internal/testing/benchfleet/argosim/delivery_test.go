//go:build linux

package argosim_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/clock"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/lock"
	"github.com/strata-fleet/strata/internal/rollout"
	"github.com/strata-fleet/strata/internal/testing/benchfleet/argosim"
	"github.com/strata-fleet/strata/internal/testing/testenv"
	"github.com/strata-fleet/strata/internal/testing/testgit"
)

// BenchmarkDelivery rolls out STRATA_BENCH_PATCHES patches (default 20) of
// different components at once (rollout.RunAll, as `strata rollout --all`)
// over STRATA_BENCH_CLUSTERS spokes (default 200) of one hub, central
// model, on one real kube-apiserver, with argosim playing the hub's Argo
// CD (STRATA_BENCH_DELAY, default 1s, from a push to the Applications
// synced). Three stages: dev (a tenth of the clusters, where the patches
// start), staging in waves [10%, 100%], prod in waves [10%, 50%, 100%];
// soak 0. It reports the whole rollout's time, the gap from the last
// Application of a step turning healthy to the next step's push
// (p50/p95/max), the process's peak RSS and the list and watch calls
// strata made. STRATA_BENCH_STOP_AFTER_S stops the rollout after that many
// seconds and reports what it did until then (at 1,000 x 100 a whole run
// outlasts a working session). Run: hack/bench-delivery.sh.
func BenchmarkDelivery(b *testing.B) {
	if testing.Short() {
		b.Skip("minutes long: hack/bench-delivery.sh runs it")
	}
	clusters := argosim.EnvInt(b, "STRATA_BENCH_CLUSTERS", 200)
	patches := argosim.EnvInt(b, "STRATA_BENCH_PATCHES", 20)
	delay := time.Duration(argosim.EnvInt(b, "STRATA_BENCH_DELAY_MS", 1000)) * time.Millisecond
	writers := argosim.EnvInt(b, "STRATA_BENCH_WRITERS", 32)
	for range b.N {
		runDelivery(b, clusters, patches, writers, delay)
	}
}

func runDelivery(b *testing.B, clusters, patches, writers int, delay time.Duration) {
	// The setup's phases, logged last on one line: go test keeps the
	// first 10 lines a benchmark logs, and the report's last line (git's
	// commands) came eleventh.
	t0 := time.Now()
	var phases []string
	phase := func(what string) {
		phases = append(phases, fmt.Sprintf("%.1fs %s (peak RSS %d MiB)", time.Since(t0).Seconds(), what, peakRSS(b)/1024))
	}
	defer func() { b.Logf("the setup, at: %s", strings.Join(phases, "; ")) }()
	api := testenv.StartAPIServer(b)
	testenv.InstallArgoCDCRDs(b, api.Config())
	phase("API server started")

	simDyn, err := dynamic.NewForConfig(qps(api.Config()))
	if err != nil {
		b.Fatal(err)
	}
	var calls argosim.Calls
	cfg := qps(api.Config())
	cfg.Wrap(countCalls(&calls))
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "argocd"}}}
	nsGVR := argosimNamespaces
	if _, err := simDyn.Resource(nsGVR).Create(context.Background(), ns, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}

	dir := filepath.Join(b.TempDir(), "fleet")
	bare := filepath.Join(b.TempDir(), "remote.git")
	testgit.Run(b, "", "init", "-q", "-b", "main", dir)
	spokes := writeFleet(b, dir, clusters, patches)
	b.Setenv("STRATA_CACHE_DIR", b.TempDir())
	render(b, dir)
	phase(fmt.Sprintf("fleet of %d spokes x %d components rendered", clusters, patches))
	testgit.Run(b, dir, "add", "-A")
	testgit.Run(b, dir, "commit", "-q", "-m", "the fleet")
	phase("the fleet committed")
	// The remote is a local clone, its objects hard links to the work
	// tree's: a push of 100,000 new objects packs them all first.
	testgit.Run(b, "", "clone", "-q", "--bare", dir, bare)
	testgit.Run(b, dir, "remote", "add", "origin", bare)
	testgit.Run(b, dir, "fetch", "-q", "origin")
	testgit.Run(b, dir, "branch", "-q", "-u", "origin/main")
	phase("the remote cloned")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sim := &argosim.Sim{Dyn: simDyn, Namespace: "argocd", Remote: bare, RepoURL: "https://git.example.com/fleet.git",
		Spokes: spokes, Delay: delay, Writers: writers}
	sim.Start(ctx)
	if err := sim.Sync(ctx, testgit.Run(b, bare, "rev-parse", "main")); err != nil {
		b.Fatal(err)
	}
	phase("argosim: the fleet synced")

	for i := range patches {
		write(b, dir, fmt.Sprintf("config/workload/c%03d/dev/patch-001.yaml", i),
			fmt.Sprintf("metadata:\n  description: c%03d 1.1.0\napplications:\n  c%03d:\n    source:\n      targetRevision: 1.1.0\n", i, i))
	}
	render(b, dir)
	testgit.Run(b, dir, "add", "-A")
	testgit.Run(b, dir, "commit", "-q", "-m", "the patches, at dev")
	testgit.Run(b, dir, "push", "-q", "origin", "main")
	if err := sim.Sync(ctx, testgit.Run(b, bare, "rev-parse", "main")); err != nil {
		b.Fatal(err)
	}
	phase(fmt.Sprintf("%d patches at dev, synced", patches))
	if os.Getenv("STRATA_BENCH_SETUP_ONLY") != "" {
		return
	}

	soak, timeout := time.Duration(0), 30*time.Minute
	before := apiCalls(b, api.Config())
	calls.Reset()
	runCtx := ctx
	if s := argosim.EnvInt(b, "STRATA_BENCH_STOP_AFTER_S", 0); s > 0 {
		var stop context.CancelFunc
		runCtx, stop = context.WithTimeout(ctx, time.Duration(s)*time.Second)
		defer stop()
	}
	b.ResetTimer()
	var run delivered
	if bin := os.Getenv("STRATA_BENCH_STRATA"); bin != "" {
		run = runChild(runCtx, b, bin, api, dir, bare, sim, soak, timeout)
	} else {
		run = runInProcess(runCtx, b, dyn, dir, bare, sim, soak, timeout)
	}
	run.stopped = runCtx.Err() != nil
	b.StopTimer()
	events, took := run.events, run.took
	after := apiCalls(b, api.Config())
	writes, simErr := sim.Stats()
	if simErr != nil {
		b.Errorf("argosim: %v", simErr)
	}

	// The gap from the last Application of a step turning healthy to the
	// next step's push, per patch.
	byPatch := map[string][]string{}
	for _, e := range events {
		if e.Kind == rollout.KindPromoted || e.Kind == rollout.KindDone {
			if e.Commit != "" {
				byPatch[e.Patch] = append(byPatch[e.Patch], e.Commit)
			}
		}
	}
	// The gap splits in two: from argosim's last write to strata's
	// healthy event for the step (the watch), and from that event to the
	// next step's push (the lock, plan, render, commit, push).
	seenAt := map[string]time.Time{}
	for _, e := range events {
		if e.Kind == rollout.KindHealthy && e.Commit != "" {
			seenAt[e.Patch+" "+e.Commit] = e.Time
		}
	}
	var gaps, seen, written []time.Duration
	steps := 0
	for patch, commits := range byPatch {
		steps += len(commits)
		for i := 1; i < len(commits); i++ {
			h, ok1 := sim.Healthy(commits[i-1])
			p, ok2 := sim.PushedAt(commits[i])
			if ok1 && ok2 {
				gaps = append(gaps, p.Sub(h))
			}
			if s, ok := seenAt[patch+" "+commits[i-1]]; ok && ok1 && ok2 {
				seen, written = append(seen, s.Sub(h)), append(written, p.Sub(s))
			}
		}
	}
	pct, dist := argosim.Pct, argosim.Dist
	b.ReportMetric(took.Seconds(), "rollout-s")
	b.ReportMetric(pct(gaps, 0.95).Seconds(), "gap-p95-s")
	b.ReportMetric(float64(run.rss)/1024, "peak-rss-MiB")
	ended := fmt.Sprintf("rollout took %s; %d patches failed", took.Round(10*time.Millisecond), run.failed)
	if run.stopped {
		ended = fmt.Sprintf("rollout stopped after %s (STRATA_BENCH_STOP_AFTER_S); %d patches done", took.Round(10*time.Millisecond), run.done)
	}
	b.Logf("%d spokes, %d patches, delay %s: %s; %d step commits; "+
		"healthy to next push: %s; of it, healthy to strata's healthy event: %s; that event to the push: %s; "+
		"argosim wrote %d objects; Applications listed %d times, watched %d times (the API server's count)",
		clusters, patches, delay, ended, steps,
		dist(gaps), dist(seen), dist(written), writes, after.list-before.list, after.watch-before.watch)
	if run.child {
		b.Logf("strata rollout --all as a child: %s", run.usage)
		return
	}
	b.Logf("the repository lock (%d takes): waited for %s, held %s (sum %s); strata's calls: %s; "+
		"peak RSS of this process (strata, argosim, the test) %d MiB",
		len(run.lockHeld), dist(run.lockWait), dist(run.lockHeld), sum(run.lockHeld), calls.String(), run.rss/1024)
	b.Logf("strata's git commands, count (wall time summed): %s", run.git)
}

// delivered is how the rollout of every patch went.
type delivered struct {
	events []rollout.Event
	took   time.Duration
	// failed are the patches not done; done those done. stopped: the
	// rollout was stopped (STRATA_BENCH_STOP_AFTER_S), so the patches not
	// done were cut short, not failed.
	failed, done int
	stopped      bool
	// rss is the peak RSS in KiB: of the child, or of this process.
	rss int
	// child: strata ran as a child process, which took usage.
	child bool
	usage argosim.Usage
	// In process: the repository lock's waits and holds, git's commands.
	lockWait, lockHeld []time.Duration
	git                *pushGit
}

// runInProcess runs rollout.RunAll in this process.
func runInProcess(ctx context.Context, b *testing.B, dyn dynamic.Interface, dir, bare string, sim *argosim.Sim, soak, timeout time.Duration) delivered {
	var mu sync.Mutex
	var out delivered
	out.git = &pushGit{Exec: git.Exec{Dir: dir, Env: testgit.Env}, bare: bare, sim: sim}
	env := rollout.Env{
		Dir: dir, Git: out.git,
		Clock: clock.RealClock{},
		Connect: func(c *fleet.Cluster) (dynamic.Interface, error) {
			if c.Name != "hub" {
				return nil, fmt.Errorf("cluster %s runs no Argo CD here", c.Name)
			}
			return dyn, nil
		},
		// The writes take the repository lock: how long each waited for it
		// and held it.
		Lock: func(ctx context.Context) (func(), error) {
			asked := time.Now()
			l, err := lock.Acquire(ctx, dir, lock.Options{Command: "bench", Wait: 10 * time.Minute})
			if err != nil {
				return nil, err
			}
			got := time.Now()
			return func() {
				l.Release()
				mu.Lock()
				out.lockWait, out.lockHeld = append(out.lockWait, got.Sub(asked)), append(out.lockHeld, time.Since(got))
				mu.Unlock()
			}, nil
		},
		Events: func(e rollout.Event) {
			mu.Lock()
			out.events = append(out.events, e)
			mu.Unlock()
		},
	}
	watchMemory(ctx, b, 0)
	start := time.Now()
	results, err := rollout.RunAll(ctx, env, rollout.Options{Approver: "Bench <bench@strata.invalid>", Soak: &soak, Timeout: &timeout})
	out.took = time.Since(start)
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range results {
		if r.Err == nil && r.Result != nil && r.Result.Stopped == "done" {
			out.done++
			continue
		}
		out.failed++
		if out.failed <= 3 && ctx.Err() == nil {
			b.Errorf("%s: %v (%+v)", r.Patch, r.Err, r.Result)
		}
	}
	out.rss = peakRSS(b)
	return out
}

func sum(d []time.Duration) time.Duration {
	var t time.Duration
	for _, x := range d {
		t += x
	}
	return t.Round(time.Millisecond)
}

var argosimNamespaces = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
