//go:build linux

package argosim_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/output"
	"github.com/strata-fleet/strata/internal/promote"
	"github.com/strata-fleet/strata/internal/rootfs"
	"github.com/strata-fleet/strata/internal/testing/benchfleet/argosim"
	"github.com/strata-fleet/strata/internal/testing/testgit"
)

// BenchmarkStep times one step of the delivery fleet's writer without an
// API server: the patch of component c000 entering staging's second wave
// (100%: ~0.27 x STRATA_BENCH_CLUSTERS targets, default 200) of a fleet of
// STRATA_BENCH_PATCHES components (default 20), as the rollout makes it
// (action.Step: promote, render what the step can change, commit; the
// render state kept, rendered/ staged by the plan's directories). Each
// iteration starts from the same commit (git reset --hard, the render
// state restored). It reports each part's time per step: promote (load,
// plan, apply), render (output.Run: values, both passes, staging,
// switching, the state), git add, the rest of the commit.
//
// STRATA_BENCH_SKIP=3 times the prod wave that coalesces the patch's
// copies at prod instead (the setup takes the three steps before it).
// STRATA_BENCH_FLEET, a directory (one for each setting of the above),
// keeps the fleet set up there for the next runs (go test calls a benchmark once with b.N = 1 first: without it,
// the setup is made at each call); STRATA_BENCH_CPUPROFILE profiles the
// steps alone. Run:
//
//	STRATA_BENCH_FLEET=/dev/shm/step STRATA_BENCH_CLUSTERS=1000 STRATA_BENCH_PATCHES=100 \
//	  go test -run '^$' -bench BenchmarkStep -benchtime 5x ./internal/testing/benchfleet/argosim
func BenchmarkStep(b *testing.B) {
	if testing.Short() {
		b.Skip("the fleet's setup is minutes long at scale")
	}
	clusters := argosim.EnvInt(b, "STRATA_BENCH_CLUSTERS", 200)
	components := argosim.EnvInt(b, "STRATA_BENCH_PATCHES", 20)
	ctx := context.Background()
	work := os.Getenv("STRATA_BENCH_FLEET")
	if work == "" {
		work = b.TempDir()
	}
	dir, statePath := filepath.Join(work, "fleet"), filepath.Join(work, "state")
	b.Setenv("STRATA_CACHE_DIR", filepath.Join(work, "cache"))
	timed := &timedGit{Exec: git.Exec{Dir: dir, Env: testgit.Env}}
	g := git.Repo{Git: timed}
	var took stepTimes
	if _, err := os.Stat(statePath); err != nil {
		setupStep(ctx, b, dir, clusters, components, argosim.EnvInt(b, "STRATA_BENCH_SKIP", 0), g, &took)
	} else {
		b.Logf("the fleet of %s, as set up before", work)
	}
	state, err := os.ReadFile(statePath)
	if err != nil {
		b.Fatal(err)
	}
	current, err := output.StatePath(dir)
	if err != nil {
		b.Fatal(err)
	}
	var stop func()
	if p := os.Getenv("STRATA_BENCH_CPUPROFILE"); p != "" {
		stop = cpuProfile(b, p)
	}

	took, timed.took, timed.cpu = stepTimes{}, map[string]time.Duration{}, map[string]time.Duration{}
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		testgit.Run(b, dir, "reset", "-q", "--hard", "bench-base")
		if err := os.WriteFile(current, state, 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		step(ctx, b, dir, g, &took)
	}
	b.StopTimer()
	if stop != nil {
		stop()
	}
	n := float64(b.N)
	per := func(d time.Duration) float64 { return float64(d.Milliseconds()) / n }
	add := timed.took["add"]
	var gitCPU time.Duration
	for _, d := range timed.cpu {
		gitCPU += d
	}
	b.ReportMetric(per(gitCPU), "git-cpu-ms")
	b.ReportMetric(per(took.promote), "promote-ms")
	b.ReportMetric(per(took.render), "render-ms")
	b.ReportMetric(per(took.renderCPU), "render-cpu-ms")
	b.ReportMetric(per(add), "git-add-ms")
	b.ReportMetric(per(took.commit-add), "commit-rest-ms")
	b.Logf("%d targets rendered a step; git a step, wall (CPU), ms: %s", took.targets/b.N, timed.String(b.N))
}

// setupStep writes the fleet in dir, renders it, puts c000's patch at dev
// and takes its first step (staging's first wave) and skip more: the last
// commit is tagged bench-base, the render state then copied to
// dir/../state.
func setupStep(ctx context.Context, b *testing.B, dir string, clusters, components, skip int, g git.Repo, took *stepTimes) {
	t0 := time.Now()
	testgit.Run(b, "", "init", "-q", "-b", "main", dir)
	writeFleet(b, dir, clusters, components)
	current, err := output.StatePath(dir)
	if err != nil {
		b.Fatal(err)
	}
	renderState := func() {
		b.Helper()
		if _, err := output.Run(output.Options{Root: dir, StatePath: current}); err != nil {
			b.Fatal(err)
		}
	}
	renderState()
	write(b, dir, "config/workload/c000/dev/patch-001.yaml",
		"metadata:\n  description: c000 1.1.0\napplications:\n  c000:\n    source:\n      targetRevision: 1.1.0\n")
	renderState()
	testgit.Run(b, dir, "add", "-A")
	testgit.Run(b, dir, "commit", "-q", "-m", "the fleet, c000's patch at dev")
	step(ctx, b, dir, g, took) // staging's first wave (10%)
	for range skip {
		step(ctx, b, dir, g, took)
	}
	testgit.Run(b, dir, "tag", "bench-base")
	state, err := os.ReadFile(current)
	if err != nil {
		b.Fatal(err)
	}
	write(b, filepath.Dir(dir), "state", string(state))
	b.Logf("%d spokes x %d components set up in %s", clusters, components, time.Since(t0).Round(time.Second))
}

// cpuProfile profiles the CPU into path until the function it returns is
// called: the steps only, not the setup (go test's -cpuprofile takes all).
func cpuProfile(b *testing.B, path string) func() {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// stepTimes are the parts of the steps timed, summed.
type stepTimes struct {
	promote, render, commit time.Duration
	// renderCPU is this process's CPU time while rendering.
	renderCPU time.Duration
	targets   int
}

// step makes the next step of c000's patch as a rollout does, and
// commits it.
func step(ctx context.Context, b *testing.B, dir string, g git.Repo, took *stepTimes) {
	b.Helper()
	t0 := time.Now()
	root, err := os.OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()
	fsys := rootfs.New(root)
	f, err := action.LoadComponent(fsys, "workload", "c000")
	if err != nil {
		b.Fatal(err)
	}
	plan, err := promote.Prepare(f, promote.Options{ClusterType: "workload", Component: "c000", Patch: "patch-001"})
	if err != nil {
		b.Fatal(err)
	}
	ops, err := promote.NewDirOps(dir)
	if err != nil {
		b.Fatal(err)
	}
	act := &action.Step{Dir: dir, FS: fsys, Ops: ops, Retry: "run the benchmark again"}
	if err := act.Apply(plan); err != nil {
		b.Fatal(err)
	}
	t1, cpu := time.Now(), cpuTime(syscall.RUSAGE_SELF)
	res, err := act.Render(plan)
	if err != nil {
		b.Fatal(err)
	}
	t2 := time.Now()
	took.renderCPU += cpuTime(syscall.RUSAGE_SELF) - cpu
	if _, err := act.Commit(ctx, plan, action.Commit{Git: g.Batch(), Paths: []string{"config", "rendered"}, Planned: true}); err != nil {
		b.Fatal(err)
	}
	took.promote += t1.Sub(t0)
	took.render += t2.Sub(t1)
	took.commit += time.Since(t2)
	took.targets += res.Rendered
}

// timedGit is git.Exec timing each subcommand: wall time and git's CPU
// time (user + system, from the rusage of this process's children:
// the benchmark runs one git at a time), summed.
type timedGit struct {
	git.Exec
	took, cpu map[string]time.Duration
}

func (g *timedGit) Run(ctx context.Context, args ...string) (string, error) {
	start, cpu := time.Now(), cpuTime(syscall.RUSAGE_CHILDREN)
	out, err := g.Exec.Run(ctx, args...)
	if g.took == nil {
		g.took, g.cpu = map[string]time.Duration{}, map[string]time.Duration{}
	}
	sub := git.Subcommand(args)
	g.took[sub] += time.Since(start)
	g.cpu[sub] += cpuTime(syscall.RUSAGE_CHILDREN) - cpu
	return out, err
}

// String is each subcommand's wall and CPU time per step, n steps.
func (g *timedGit) String(n int) string {
	var parts []string
	for _, cmd := range slices.Sorted(maps.Keys(g.took)) {
		parts = append(parts, fmt.Sprintf("%s %.0f (CPU %.0f)", cmd, float64(g.took[cmd].Milliseconds())/float64(n), float64(g.cpu[cmd].Milliseconds())/float64(n)))
	}
	return strings.Join(parts, ", ")
}

// cpuTime is the user and system time of who (RUSAGE_SELF, or
// RUSAGE_CHILDREN: the children waited for).
func cpuTime(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
