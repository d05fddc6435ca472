//go:build linux

package argosim_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/record"
	"github.com/strata-fleet/strata/internal/rollout"
	"github.com/strata-fleet/strata/internal/rollout/inflight"
	"github.com/strata-fleet/strata/internal/testing/benchfleet/argosim"
	"github.com/strata-fleet/strata/internal/testing/testenv"
	"github.com/strata-fleet/strata/internal/testing/testgit"
)

// TestSoak leaves strata's delivery to a week of simulated pushes (issue
// 36): three people's clones write patches (some of which fail a check or
// go Degraded in staging or prod), fix the failed ones, freeze and unfreeze
// staging and force-push main, while a `rollout --watch --on-failure
// revert` runner and CI's `rollout --all --once --on-failure revert`,
// each in a clone of its own, deliver them through argosim on a real
// kube-apiserver. The schedule is compressed (no soak, pushes as fast as
// the tools go, the runner looking every second); the randomness is
// seeded, the seed printed (STRATA_SOAK_SEED replays it).
//
// After every event it checks, from the remote's main and strata's record
// (refs/strata/record) only:
//
//   - a failed step is never delivered again: no `step` entry of a patch
//     whose files are those of its last `failed` or `reverted` entry;
//   - a failing check never passes, and a Degraded step never passes: no
//     `passed` entry for a step whose patch says it fails there, and no
//     step taken from where the patch stood unless that passed (a `passed`
//     entry with the patch's files before the step);
//   - no revert of a revert, on main or in the record;
//   - no step into staging lands on main while staging is frozen;
//   - CI's exit codes agree with its events (1 with a failed event, 6 with
//     a pending or held one, 0 with neither; every error has a message);
//   - the record holds each entry once;
//
// and, every few events and at the end once the runner is idle, that
// `status` lists what the runner's strata_rollouts_in_flight counts, and
// shows the failure of each patch the record says failed.
//
// Not part of make test (minutes long, it needs the built strata):
// hack/soak.sh runs it and prints its figures (BENCHMARKS.md).
func TestSoak(t *testing.T) {
	bin := os.Getenv("STRATA_SOAK_STRATA")
	if bin == "" {
		t.Skip("the soak test, minutes long, runs the built strata: hack/soak.sh")
	}
	events := argosim.EnvInt(t, "STRATA_SOAK_EVENTS", 60)
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("STRATA_SOAK_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("STRATA_SOAK_SEED=%q: want an unsigned integer", v)
		}
		seed = n
	}
	t.Logf("seed %d (STRATA_SOAK_SEED=%d replays the same events)", seed, seed)
	s := startSoak(t, bin, seed)
	start := time.Now()
	for i := range events {
		s.event(i)
		s.check(fmt.Sprintf("after event %d", i+1))
		if (i+1)%10 == 0 {
			s.agree(fmt.Sprintf("after event %d", i+1))
		}
	}
	s.drain()
	s.check("at the end")
	s.agree("at the end")
	f := s.figures()
	t.Logf("soak: seed %d, %d events in %s: %s; %d violations", seed, events, time.Since(start).Round(time.Second), f, len(s.violations))
	for _, v := range s.violations {
		t.Errorf("seed %d: %s", seed, v)
	}
}

// The soak's fleet: 10 spokes (dev d0000; staging s0000-s0002 in waves
// [10%, 100%]; prod p0000-p0005 in waves [10%, 50%, 100%]) and 6
// components, one hub; a check at every step that fails for a patch whose
// description says "fails-check-in: ENV" at a step into ENV; argosim turns
// an Application Degraded where its version says "degraded-in-ENV".
const (
	soakClusters   = 10
	soakComponents = 6
	soakInterval   = "1s"
	// The check: the env of each of the step's targets
	// (workload/ENV/REGION; a run settling where the patch is names every
	// target it is at), and the patch's file wherever it sits.
	soakCheck = `for t in $STRATA_TARGETS; do env=$(echo "$t" | cut -d/ -f2); ` +
		`if grep -rqs "fails-check-in: $env" --include="$STRATA_PATCH.yaml" "config/$STRATA_CLUSTER_TYPE/$STRATA_COMPONENT"; ` +
		`then echo "smoke fails in $env"; exit 1; fi; done`
)

type soak struct {
	t       *testing.T
	bin     string
	rng     *rand.Rand
	api     *testenv.APIServer
	bare    string
	sim     *argosim.Sim
	cache   string
	people  []string // the clones people push from
	ci      string   // CI's clone
	look    string   // the clone status runs in
	runner  string   // the runner's clone
	metrics string   // the runner's metrics address
	logs    string   // where the runner's and CI's output go

	// next names the next patch (patch-NNN, unique over the fleet).
	next int
	// gens counts the versions of each patch written (the patch's files
	// change with each).
	gens map[string]int
	// frozen is whether staging is frozen on main, since which commit.
	frozen     bool
	freezes    int
	forced     int
	ciRuns     map[int]int // CI's runs by exit code
	violations []string
	seen       map[string]bool // violations said once
	descs      map[string]string
	dups       int    // entries the remote's record holds more than once
	dup        string // the subject of the last of them
}

func startSoak(t *testing.T, bin string, seed uint64) *soak {
	s := &soak{t: t, bin: bin, rng: rand.New(rand.NewPCG(seed, seed^0x5eed)), gens: map[string]int{}, ciRuns: map[int]int{}, seen: map[string]bool{}, descs: map[string]string{}}
	s.api = testenv.StartAPIServer(t)
	testenv.InstallArgoCDCRDs(t, s.api.Config())
	dyn, err := dynamic.NewForConfig(qps(s.api.Config()))
	if err != nil {
		t.Fatal(err)
	}
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "argocd"}}}
	if _, err := dyn.Resource(argosimNamespaces).Create(context.Background(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	s.cache = t.TempDir()
	s.logs = os.Getenv("STRATA_SOAK_LOGS")
	if s.logs == "" {
		s.logs = t.TempDir()
	} else if err := os.MkdirAll(s.logs, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("STRATA_CACHE_DIR", s.cache)

	root := t.TempDir()
	dir := filepath.Join(root, "alice")
	s.bare = filepath.Join(root, "remote.git")
	testgit.Run(t, "", "init", "-q", "-b", "main", dir)
	spokes := writeFleet(t, dir, soakClusters, soakComponents)
	cfg, err := os.ReadFile(filepath.Join(dir, "config/config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, "config/config.yaml", string(cfg)+"rollout:\n  soak: 0s\n  timeout: 1m\n  checks:\n    - name: smoke\n      command: '"+soakCheck+"'\n")
	render(t, dir)
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "the fleet")
	testgit.Run(t, "", "clone", "-q", "--bare", dir, s.bare)
	testgit.Run(t, dir, "remote", "add", "origin", s.bare)
	testgit.Run(t, dir, "fetch", "-q", "origin")
	testgit.Run(t, dir, "branch", "-q", "-u", "origin/main")
	s.people = []string{dir}
	for _, name := range []string{"bob", "carol"} {
		s.people = append(s.people, s.clone(root, name))
	}
	s.ci, s.look, s.runner = s.clone(root, "ci"), s.clone(root, "status"), s.clone(root, "runner")

	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s.sim = &argosim.Sim{Dyn: dyn, Namespace: "argocd", Remote: s.bare, RepoURL: "https://git.example.com/fleet.git",
		Spokes: spokes, Delay: 100 * time.Millisecond, Writers: 8, Degrade: degrade}
	s.sim.Start(ctx)
	if err := s.sim.Sync(ctx, testgit.Run(t, s.bare, "rev-parse", "main")); err != nil {
		t.Fatal(err)
	}
	announcePushes(t, s.bare, s.sim)
	s.startRunner(ctx)
	return s
}

// degrade is argosim's health: an Application whose version (its
// source's targetRevision) says degraded-in-ENV is Degraded on ENV's
// clusters (spoke-d..., spoke-s..., spoke-p...).
func degrade(cluster, _ string, spec map[string]any) string {
	src, _ := spec["source"].(map[string]any)
	v, _ := src["targetRevision"].(string)
	if env := envOfCluster(cluster); env != "" && strings.Contains(v, "degraded-in-"+env) {
		return "Deployment app: 0/1 replicas available (" + v + ")"
	}
	return ""
}

func envOfCluster(cluster string) string {
	switch {
	case strings.HasPrefix(cluster, "spoke-d"):
		return "dev"
	case strings.HasPrefix(cluster, "spoke-s"):
		return "staging"
	case strings.HasPrefix(cluster, "spoke-p"):
		return "prod"
	}
	return ""
}

func (s *soak) clone(root, name string) string {
	dir := filepath.Join(root, name)
	testgit.Run(s.t, "", "clone", "-q", "-b", "main", s.bare, dir)
	return dir
}

// startRunner starts `strata rollout --watch --on-failure revert` in its
// clone, serving its metrics, until the test ends.
func (s *soak) startRunner(ctx context.Context) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.t.Fatal(err)
	}
	s.metrics = l.Addr().String()
	l.Close()
	cmd := s.command(ctx, s.runner, "rollout", "--watch", "--on-failure", "revert", "-o", "json", "--interval", soakInterval,
		"--hold-interval", soakInterval, "--metrics-addr", s.metrics)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = time.Minute
	logf, err := os.Create(filepath.Join(s.logs, "runner.log"))
	if err != nil {
		s.t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	s.t.Cleanup(func() {
		select {
		case <-done:
			s.violate("the runner ended before the test: see %s", logf.Name())
		default:
		}
		cancel := cmd.Cancel
		_ = cancel()
		<-done
		logf.Close()
		if s.t.Failed() {
			if data, err := os.ReadFile(logf.Name()); err == nil {
				s.t.Logf("the runner's output, last 8 KiB:\n%s", tail(data, 8<<10))
			}
		}
	})
	// Up once its metrics answer.
	s.await("the runner's metrics", 2*time.Minute, func() bool { _, err := s.inFlightMetric(); return err == nil })
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// command is strata args in dir, with the hub's kubeconfig.
func (s *soak) command(ctx context.Context, dir string, args ...string) *exec.Cmd {
	full := append([]string{"--root", dir}, args...)
	if args[0] == "rollout" {
		full = append(full, "--kubeconfig", s.api.Kubeconfig, "--cluster-context", "hub="+testenv.ContextName)
	}
	cmd := exec.CommandContext(ctx, s.bin, full...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), testgit.Env...)
	return cmd
}

// strata runs strata args in dir to its end: exit code, stdout, stderr.
func (s *soak) strata(dir string, args ...string) (int, string, string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := s.command(ctx, dir, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, stdout.String(), stderr.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), stdout.String(), stderr.String()
	}
	s.t.Fatalf("strata %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	return 0, "", ""
}

// git runs git in dir; ok is false where it fails.
func gitIn(dir string, args ...string) (string, bool) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), testgit.Env...)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err == nil
}

// event is the i-th thing that happens in the week.
func (s *soak) event(i int) {
	p := s.people[s.rng.IntN(len(s.people))]
	n := s.rng.IntN(100)
	if (i+1)%15 == 0 {
		n = 62 // every 15th event a force-push, whatever the seed draws
	}
	switch {
	case n < 40:
		s.newPatch(p)
	case n < 52:
		s.fixPatch(p)
	case n < 62:
		s.toggleFreeze(p)
	case n < 70: // 8% besides every 15th: seeds 1 and 2 drew none in 40 events at 5% or 8%
		s.t.Logf("event %d: a force-push of main from %s", i+1, filepath.Base(p))
		s.forcePush(p)
	default:
		s.ciRun()
	}
}

// pull brings a person's clone to the remote's main.
func (s *soak) pull(dir string) {
	testgit.Run(s.t, dir, "fetch", "-q", "origin")
	testgit.Run(s.t, dir, "reset", "-q", "--hard", "origin/main")
}

// push commits what the person's clone holds with message and pushes it,
// rebased on the remote as often as it is refused; a rebase in conflict
// starts again from the remote (redo makes the change again). It
// returns the commit pushed, "" when the change has nothing left to do.
func (s *soak) push(dir, message string, redo func()) string {
	for range 20 {
		if out, _ := gitIn(dir, "status", "--porcelain"); out == "" {
			return "" // nothing left to change (a fix of a patch folded meanwhile)
		}
		testgit.Run(s.t, dir, "add", "-A")
		testgit.Run(s.t, dir, "commit", "-q", "-m", message)
		if _, ok := gitIn(dir, "push", "-q", "origin", "HEAD:main"); ok {
			return testgit.Run(s.t, dir, "rev-parse", "HEAD")
		}
		s.pull(dir)
		redo()
	}
	s.t.Fatalf("%s: the push of %q was refused 20 times", dir, message)
	return ""
}

// components with a patch in flight, in dir's work tree.
func (s *soak) busy(dir string) map[int]bool {
	out := map[int]bool{}
	for c := range soakComponents {
		files, _ := filepath.Glob(filepath.Join(dir, fmt.Sprintf("config/workload/c%03d", c), "*"))
		for _, f := range files {
			if filepath.Base(f) != "values.yaml" {
				out[c] = true
			}
		}
	}
	return out
}

// newPatch: a person writes a patch of a component with none in flight at
// dev, renders and pushes it. One in four fails its check in staging or
// prod, one in six goes Degraded there.
func (s *soak) newPatch(dir string) {
	s.pull(dir)
	busy := s.busy(dir)
	var free []int
	for c := range soakComponents {
		if !busy[c] {
			free = append(free, c)
		}
	}
	if len(free) == 0 {
		s.ciRun()
		return
	}
	c := free[s.rng.IntN(len(free))]
	s.next++
	name := fmt.Sprintf("patch-%03d", s.next)
	id := fmt.Sprintf("workload/c%03d/%s", c, name)
	env := []string{"staging", "prod"}[s.rng.IntN(2)]
	var marker, version string
	switch n := s.rng.IntN(12); {
	case n < 3:
		marker = " fails-check-in: " + env
	case n < 5:
		version = "-degraded-in-" + env
	}
	n := s.next
	redo := func() {
		write(s.t, dir, fmt.Sprintf("config/workload/c%03d/dev/%s.yaml", c, name), patchYAML(c, n, 0, marker, version))
		render(s.t, dir)
	}
	redo()
	s.gens[id] = 0
	s.push(dir, fmt.Sprintf("%s of c%03d%s%s", name, c, marker, version), redo)
}

// patchYAML is patch n of component c, its gen-th version.
func patchYAML(c, n, gen int, marker, version string) string {
	return fmt.Sprintf("metadata:\n  description: \"c%03d patch %d gen %d%s\"\napplications:\n  c%03d:\n    source:\n      targetRevision: \"1.%d.%d%s\"\n",
		c, n, gen, marker, c, n, gen, version)
}

// fixPatch: a person mends a patch the record says failed (its files as
// they were when it failed): the failing check or version is gone, the
// patch's files change, and its rollout may go on.
func (s *soak) fixPatch(dir string) {
	s.pull(dir)
	stuck := s.stuck(dir)
	if len(stuck) == 0 {
		s.newPatch(dir)
		return
	}
	id := stuck[s.rng.IntN(len(stuck))]
	parts := strings.Split(id, "/")
	path := s.patchPath(dir, parts[1], parts[2])
	if path == "" {
		return // reverted away (a first step), or folded meanwhile
	}
	gen := s.gens[id] + 1
	var c, n int
	fmt.Sscanf(parts[1], "c%d", &c)
	fmt.Sscanf(parts[2], "patch-%d", &n)
	fix := func() {
		// Every copy: the check reads them all (a copy left failing failed
		// the step again, its files changed: no re-delivery, no fix).
		ps := s.patchPaths(dir, parts[1], parts[2])
		if len(ps) == 0 {
			return
		}
		for _, p := range ps {
			write(s.t, dir, p, patchYAML(c, n, gen, "", ""))
		}
		render(s.t, dir)
	}
	fix()
	if s.push(dir, "fix "+id, fix) != "" {
		s.gens[id] = gen
	}
}

// patchPath is where patch name of component sits in dir's work tree
// (relative; its last copy), "" when nowhere.
func (s *soak) patchPath(dir, component, name string) string {
	ps := s.patchPaths(dir, component, name)
	if len(ps) == 0 {
		return ""
	}
	return ps[len(ps)-1]
}

// patchPaths are the copies of patch name of component in dir's work tree
// (relative).
func (s *soak) patchPaths(dir, component, name string) []string {
	var found []string
	_ = filepath.WalkDir(filepath.Join(dir, "config/workload", component), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == name+".yaml" {
			rel, _ := filepath.Rel(dir, p)
			found = append(found, rel)
		}
		return nil
	})
	return found
}

// stuck are the patches in dir whose files are those of their last
// failed or reverted entry in the remote's record.
func (s *soak) stuck(dir string) []string {
	entries := s.record()
	var out []string
	for id, e := range lastFailure(entries) {
		parts := strings.Split(id, "/")
		if s.patchPath(dir, parts[1], parts[2]) == "" {
			continue
		}
		if files, ok := s.filesAt("main", id); ok && files == e.PatchFiles {
			out = append(out, id)
		}
	}
	return out
}

// filesAt is record.FilesOf the patch at rev on the remote.
func (s *soak) filesAt(rev, id string) (string, bool) {
	files, err := record.FilesOf(context.Background(), git.Exec{Dir: s.bare, Env: testgit.Env}, rev, id)
	return files, err == nil
}

// toggleFreeze freezes staging, or unfreezes it, from a person's clone.
func (s *soak) toggleFreeze(dir string) {
	s.pull(dir)
	args := []string{"freeze", "staging", "--reason", "soak: a week's freeze", "--push"}
	if s.frozen {
		args = []string{"unfreeze", "staging", "--reason", "soak: thawed", "--push"}
	}
	for range 10 {
		code, _, stderr := s.strata(dir, args...)
		if code == 0 {
			s.frozen = !s.frozen
			s.freezes++
			return
		}
		s.t.Logf("strata %s: exit %d (tried again)\n%s", strings.Join(args, " "), code, stderr)
		s.pull(dir)
	}
	s.violate("strata %s failed 10 times", strings.Join(args, " "))
}

// forcePush: a person pushes a note, the runner takes it, and the person
// rewords it and force-pushes main (rewrite). The runner says the way out
// (/healthz 503); the operator takes it (resets the runner's clone to the
// new main) and the runner goes on.
func (s *soak) forcePush(dir string) {
	s.pull(dir)
	text := fmt.Sprintf("note %d\n", s.rng.IntN(1000))
	redo := func() { write(s.t, dir, "docs/notes.md", text+"(again)\n") }
	write(s.t, dir, "docs/notes.md", text)
	note := s.push(dir, "docs: a note", redo)
	s.await("the runner's clone to take the note", 2*time.Minute, func() bool {
		_, ok := gitIn(s.runner, "merge-base", "--is-ancestor", note, "HEAD")
		return ok
	})
	if !s.rewrite(dir, note) {
		return
	}
	s.forced++
	// Its next look fails with the way out, unless a rollout's replay
	// brought the clone to the new main first.
	var body string
	s.await("the runner to see main rewritten", 2*time.Minute, func() bool {
		code, b := s.healthz()
		body = b
		if code == http.StatusServiceUnavailable {
			return true
		}
		_, ok := gitIn(s.runner, "merge-base", "--is-ancestor", note, "HEAD")
		return !ok
	})
	if strings.Contains(body, "rewritten") && !strings.Contains(body, "reset --hard") {
		s.violate("after a force-push, /healthz names no way out:\n%s", body)
	}
	if _, ok := gitIn(s.runner, "merge-base", "--is-ancestor", note, "HEAD"); ok {
		gitIn(s.runner, "reset", "-q", "--hard", "origin/main")
	}
	s.await("the runner healthy again", 2*time.Minute, func() bool { code, _ := s.healthz(); return code == http.StatusOK })
}

// rewrite rewords the commit note on the remote's main and force-pushes
// main with a lease on main as fetched. Every commit after the note is
// made again on the reworded one (new hashes: the runner's steps and
// reverts among them, as any rewrite of a shared branch does). A lease
// refused because someone pushed meanwhile (the runner, most often) is
// tried again on main as fetched anew, a few times; false when it never
// held.
func (s *soak) rewrite(dir, note string) bool {
	for range 5 {
		testgit.Run(s.t, dir, "fetch", "-q", "origin")
		base := testgit.Run(s.t, dir, "rev-parse", "origin/main")
		testgit.Run(s.t, dir, "checkout", "-q", "--detach", note)
		testgit.Run(s.t, dir, "commit", "-q", "--amend", "-m", "docs: a note, reworded")
		reworded := testgit.Run(s.t, dir, "rev-parse", "HEAD")
		if _, ok := gitIn(dir, "rebase", "-q", "--onto", reworded, note, base); !ok {
			gitIn(dir, "rebase", "--abort")
			s.t.Fatalf("rewording %.12s under %.12s: the rebase stopped", note, base)
		}
		_, ok := gitIn(dir, "push", "-q", "--force-with-lease=main:"+base, "origin", "HEAD:main")
		testgit.Run(s.t, dir, "checkout", "-q", "-B", "main", "origin/main")
		if ok {
			return true
		}
		s.t.Logf("the lease on main at %.12s did not hold: fetched again", base)
	}
	return false // main kept moving: no rewrite today
}

// ciRun is CI's scheduled job: a fresh checkout, then `strata rollout
// --all --once --on-failure revert -o json`; its exit code must say what
// its events say.
func (s *soak) ciRun() {
	s.pull(s.ci)
	at := time.Now()
	code, stdout, stderr := s.strata(s.ci, "rollout", "--all", "--once", "--on-failure", "revert", "-o", "json")
	s.ciRuns[code]++
	s.keep("ci.log", fmt.Sprintf("== CI's run at %s (HEAD %s): exit %d\n%s%s", at.UTC().Format(time.RFC3339Nano),
		testgit.Run(s.t, s.ci, "rev-parse", "--short", "HEAD"), code, stdout, stderr))
	kinds := map[rollout.Kind]int{}
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e rollout.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			s.violate("CI's run printed %q on stdout under -o json: %v", sc.Text(), err)
			continue
		}
		kinds[e.Kind]++
	}
	for line := range strings.SplitSeq(strings.TrimSpace(stderr), "\n") {
		if line == "" {
			continue
		}
		var msg struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err == nil && msg.Message == "" {
			s.violate("CI's run (exit %d) has an error with no message: %s", code, line)
		}
	}
	failed, pending := kinds[rollout.KindFailed] > 0, kinds[rollout.KindPending]+kinds[rollout.KindHeld] > 0
	switch {
	case code == 1 && !failed:
		s.violate("CI's run exits 1 with no failed event:\n%s%s", stdout, stderr)
	case failed && code != 1 && code != 5:
		s.violate("CI's run has a failed event and exits %d (1 comes before 4 and 6):\n%s%s", code, stdout, stderr)
	case code == 6 && !pending:
		s.violate("CI's run exits 6 with no pending or held event:\n%s%s", stdout, stderr)
	case code == 0 && (failed || pending):
		s.violate("CI's run exits 0 with %d failed and %d pending or held events", kinds[rollout.KindFailed], kinds[rollout.KindPending]+kinds[rollout.KindHeld])
	case code != 0 && code != 1 && code != 6:
		// No manual gate here, no unreachable Argo CD, no lock shared.
		s.violate("CI's run exits %d:\n%s%s", code, tail([]byte(stdout), 4<<10), stderr)
	}
}

// record is the remote's record, oldest entry first.
func (s *soak) record() []record.Entry {
	out, ok := gitIn(s.bare, "log", "--reverse", "--format=%B%x00", record.Ref)
	if !ok {
		return nil // nothing recorded yet
	}
	var entries []record.Entry
	seen := map[string]bool{}
	s.dups = 0
	for msg := range strings.SplitSeq(out, "\x00") {
		msg = strings.TrimSpace(msg)
		if msg == "" {
			continue
		}
		// An entry pushed again by a clone that put its entries on the
		// remote's record is the same fact twice.
		if seen[msg] {
			s.dups++
			s.dup, _, _ = strings.Cut(msg, "\n")
			continue
		}
		seen[msg] = true
		e, err := record.Parse(msg)
		if err != nil {
			s.violate("%q: %v", msg, err)
			continue
		}
		entries = append(entries, e)
	}
	return entries
}

// lastFailure is each patch's last failed or reverted entry not followed
// by a pass at its node.
func lastFailure(entries []record.Entry) map[string]record.Entry {
	out := map[string]record.Entry{}
	for _, e := range entries {
		failure(out, e)
	}
	return out
}

// failure updates failed, each patch's last failure, with the entry e: a
// failure or revert is the patch's last; a pass at its node lifts it (a
// pass elsewhere, at the node a revert went back to, does not).
func failure(failed map[string]record.Entry, e record.Entry) {
	switch e.Kind {
	case record.KindFailed, record.KindReverted:
		failed[e.Patch] = e
	case record.KindPassed:
		if f, ok := failed[e.Patch]; ok && f.Node == e.Node {
			delete(failed, e.Patch)
		}
	}
}

// check checks the invariants that the remote's main and record hold
// (see TestSoak).
func (s *soak) check(when string) {
	entries := s.record()
	if s.dups > 0 {
		s.violateAt(when, "the remote's record holds an entry twice (it grows with steps, not runs; figures: entries held twice)")
		s.t.Logf("%s: the remote's record holds %d entries twice, the last %q", when, s.dups, s.dup)
	}
	failed := map[string]record.Entry{}
	passedWith := map[string]bool{} // patch and files that passed
	for _, e := range entries {
		failure(failed, e)
		switch e.Kind {
		case record.KindPassed:
			desc := s.description(e.Step, e.Patch)
			for _, env := range envsOf(e.Targets) {
				if strings.Contains(desc, "fails-check-in: "+env) {
					s.violateAt(when, "the record says %s passed at %s (%.12s), whose check fails there (%q)", e.Patch, e.Node, e.Step, desc)
				}
				if strings.Contains(desc, "degraded-in-"+env) {
					s.violateAt(when, "the record says %s passed at %s (%.12s), Degraded there (%q)", e.Patch, e.Node, e.Step, desc)
				}
			}
		case record.KindStep:
			before := s.filesBefore(e)
			// The same step commit is the same delivery, its entry late
			// (pushed after another run's revert of it).
			if f, ok := failed[e.Patch]; ok && f.PatchFiles == before && f.Step != e.Step {
				s.violateAt(when, "%s's step to %s (%.12s) was delivered with the patch's files of its %s entry at %s (%.12s), unchanged",
					e.Patch, e.Node, e.Step, f.Kind, f.Node, f.Step)
			}
			if !passedWith[e.Patch+" "+before] {
				s.violateAt(when, "%s's step to %s (%.12s) was taken from where the patch stood before it, which never passed (no passed entry with its files)",
					e.Patch, e.Node, e.Step)
			}
		}
		if e.Kind == record.KindPassed {
			passedWith[e.Patch+" "+e.PatchFiles] = true
		}
		if e.Kind == record.KindReverted {
			if subj, _ := gitIn(s.bare, "log", "-1", "--format=%s", e.Step); strings.HasPrefix(subj, "Revert ") {
				s.violateAt(when, "the record says strata reverted %.12s, itself a revert (%q)", e.Step, subj)
			}
		}
	}
	log, _ := gitIn(s.bare, "log", "--first-parent", "--reverse", "--format=%H %s", "main")
	frozen := false
	for line := range strings.SplitSeq(log, "\n") {
		sha, subj, _ := strings.Cut(line, " ")
		switch {
		case strings.HasPrefix(subj, `Revert "Revert`):
			s.violateAt(when, "a revert of a revert on main: %.12s %s", sha, subj)
		case strings.HasPrefix(subj, "Freeze staging"):
			frozen = true
		case strings.HasPrefix(subj, "Unfreeze staging"):
			frozen = false
		case frozen && strings.HasPrefix(subj, "Promote ") && strings.Contains(subj, " to staging/"):
			s.violateAt(when, "a step into staging landed while it was frozen: %.12s %s", sha, subj)
		}
	}
}

// filesBefore is the patch's files (record.FilesOf) where the step e
// started: at its commit's parent, before the step moved them.
func (s *soak) filesBefore(e record.Entry) string {
	files, _ := s.filesAt(e.Step+"^", e.Patch)
	return files
}

// description is the patch's description at commit (or its parent, for a
// fold that removed the patch's files).
func (s *soak) description(commit, id string) string {
	key := commit + " " + id
	if d, ok := s.descs[key]; ok {
		return d
	}
	d := s.describe(commit, id)
	s.descs[key] = d
	return d
}

func (s *soak) describe(commit, id string) string {
	parts := strings.SplitN(id, "/", 3)
	for _, rev := range []string{commit, commit + "^"} {
		files, ok := gitIn(s.bare, "ls-tree", "-r", "--name-only", rev, "--", "config/"+parts[0]+"/"+parts[1])
		if !ok {
			continue
		}
		for f := range strings.SplitSeq(files, "\n") {
			if filepath.Base(f) == parts[2]+".yaml" {
				data, _ := gitIn(s.bare, "show", rev+":"+f)
				return data
			}
		}
	}
	return ""
}

// envsOf are the environments of targets (workload/ENV/REGION).
func envsOf(targets []string) []string {
	var out []string
	for _, t := range targets {
		if parts := strings.Split(t, "/"); len(parts) > 1 {
			out = append(out, parts[1])
		}
	}
	return out
}

// agree waits, a while, for the runner's strata_rollouts_in_flight to
// equal the rollouts `status` lists at the remote's main (both move as
// the runner works), and checks that status shows the failure of every
// patch the record says failed and that has not changed since.
func (s *soak) agree(when string) {
	var metric, listed int
	var flights []inflight.Flight
	start, apart := time.Now(), ""
	ok := s.within(3*time.Minute, func() bool {
		var err error
		if metric, err = s.inFlightMetric(); err != nil {
			return false
		}
		flights = s.status()
		listed = len(flights)
		m2, err := s.inFlightMetric()
		if err == nil && m2 == metric && metric != listed && apart == "" {
			apart = fmt.Sprintf("strata_rollouts_in_flight %d, status %d", metric, listed)
		}
		return err == nil && m2 == metric && metric == listed
	})
	if apart != "" {
		s.t.Logf("%s: %s; they agreed after %s", when, apart, time.Since(start).Round(time.Second))
	}
	if !ok {
		s.violateAt(when, "the runner's strata_rollouts_in_flight is %d, status lists %d rollouts", metric, listed)
	}
	stuck := map[string]bool{}
	for _, id := range s.stuck(s.look) {
		stuck[id] = true
	}
	for _, f := range flights {
		if stuck[f.Patch] && f.LastFailure == nil {
			s.violateAt(when, "status shows %s with no failure, though its files are those of its last failed step (waits %+v)", f.Patch, f.Waits)
		}
	}
}

// status is `strata status -o json`'s rollouts at the remote's main and
// record.
func (s *soak) status() []inflight.Flight {
	s.pull(s.look)
	testgit.Run(s.t, s.look, "fetch", "-q", "origin", record.Refspec("origin"))
	code, stdout, stderr := s.strata(s.look, "status", "-o", "json")
	if code != 0 {
		s.violate("strata status: exit %d\n%s", code, stderr)
		return nil
	}
	var st struct {
		Rollouts []inflight.Flight `json:"rollouts"`
	}
	if err := json.Unmarshal([]byte(stdout), &st); err != nil {
		s.t.Fatalf("strata status -o json: %v", err)
	}
	return st.Rollouts
}

// drain lets the runner finish: every patch folded or stopped by a
// failure, main unmoved while it looks twice.
func (s *soak) drain() {
	if s.frozen {
		s.toggleFreeze(s.people[0])
	}
	ok := s.within(20*time.Minute, func() bool {
		flights := s.status()
		for _, f := range flights {
			if f.LastFailure == nil {
				return false
			}
		}
		return true
	})
	if !ok {
		s.violate("the runner did not bring every patch to its end or a failure within 20 minutes")
	}
}

// figures sums up the record.
func (s *soak) figures() string {
	kinds := map[string]int{}
	patches := map[string]bool{}
	for _, e := range s.record() {
		kinds[e.Kind]++
		patches[e.Patch] = true
	}
	commits, _ := gitIn(s.bare, "rev-list", "--count", "main")
	return fmt.Sprintf("%d patches written, %d in the record; record: %d steps, %d passed, %d failed, %d reverted (%d entries held twice); "+
		"%s commits on main; %d freezes and unfreezes, %d force-pushes; CI's runs by exit code %v",
		s.next, len(patches), kinds[record.KindStep], kinds[record.KindPassed], kinds[record.KindFailed], kinds[record.KindReverted], s.dups,
		commits, s.freezes, s.forced, s.ciRuns)
}

// keep appends text to the log file name.
func (s *soak) keep(name, text string) {
	f, err := os.OpenFile(filepath.Join(s.logs, name), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		s.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		s.t.Fatal(err)
	}
}

// violateAt is violate for an invariant checked again and again: said
// once, with when it was first seen.
func (s *soak) violateAt(when, format string, args ...any) {
	v := fmt.Sprintf(format, args...)
	if s.seen[v] {
		return
	}
	s.seen[v] = true
	s.violations = append(s.violations, v+" (first seen "+when+")")
	s.t.Logf("VIOLATION (%s): %s", when, v)
}

func (s *soak) violate(format string, args ...any) {
	v := fmt.Sprintf(format, args...)
	if s.seen[v] {
		return
	}
	s.seen[v] = true
	s.violations = append(s.violations, v)
	s.t.Logf("VIOLATION: %s", v)
}

// inFlightMetric reads strata_rollouts_in_flight from the runner.
func (s *soak) inFlightMetric() (int, error) {
	resp, err := http.Get("http://" + s.metrics + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "strata_rollouts_in_flight "); ok {
			f, err := strconv.ParseFloat(v, 64)
			return int(f), err
		}
	}
	return 0, fmt.Errorf("no strata_rollouts_in_flight in the runner's metrics")
}

func (s *soak) healthz() (int, string) {
	resp, err := http.Get("http://" + s.metrics + "/healthz")
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

// await waits for ok, asked again at each change of the remote (its refs)
// or every half second, and fails the test after timeout.
func (s *soak) await(what string, timeout time.Duration, ok func() bool) {
	s.t.Helper()
	if !s.within(timeout, ok) {
		s.t.Fatalf("%s: not within %s", what, timeout)
	}
}

// within asks ok until it holds or timeout passes: a poll of another
// process's state (the runner's, which tells no one), every half second.
func (s *soak) within(timeout time.Duration, ok func() bool) bool {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		if ok() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
}
