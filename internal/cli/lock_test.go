package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/strata-fleet/strata/internal/cli"
	"github.com/strata-fleet/strata/internal/lock"
)

// newFleet writes strata init's fleet into a new directory, with the
// local state in another.
func newFleet(t *testing.T) string {
	t.Helper()
	t.Setenv("STRATA_CACHE_DIR", t.TempDir())
	dir := t.TempDir()
	var out bytes.Buffer
	if code := cli.Main([]string{"init", dir}, &out, &out); code != 0 {
		t.Fatalf("strata init: %s", out.String())
	}
	return dir
}

// The commands that write a repository fail at once, naming the holder,
// while another process holds its lock, and so does render --check, which
// must not compare a rendered/ being switched; the ones that only read
// config/ do not need it.
func TestWritingCommandsNameTheLockHolder(t *testing.T) {
	dir := newFleet(t)
	held, err := lock.Acquire(context.Background(), dir, lock.Options{Command: "strata promote a b c"})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	for _, args := range [][]string{
		{"render"},
		{"render", "--no-cache"},
		{"pin", "production", "v1.2.3", "--approve"},
		{"freeze", "--reason", "change freeze"},
		{"promote", "--resume"},
		{"render", "--check"},
	} {
		var out, errOut bytes.Buffer
		code := cli.Main(append([]string{"--root", dir}, args...), &out, &errOut)
		if code != 5 || !strings.Contains(errOut.String(), `the repository is locked by "strata promote a b c" (pid `) {
			t.Errorf("strata %s: exit %d, stderr %q; want exit 5 (a failure, not a finding) naming the holder", strings.Join(args, " "), code, errOut.String())
		}
	}
	for _, args := range [][]string{{"status"}, {"freeze", "--list"}} {
		var out, errOut bytes.Buffer
		if code := cli.Main(append([]string{"--root", dir}, args...), &out, &errOut); code != 0 {
			t.Errorf("strata %s: exit %d, stderr %q; want it to run beside the holder", strings.Join(args, " "), code, errOut.String())
		}
	}
}

// signalWriter closes seen when a line containing want is written.
type signalWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
	once sync.Once
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

// With --wait, a writing command says whom it waits for and runs once the
// holder is done.
func TestWaitForTheLock(t *testing.T) {
	dir := newFleet(t)
	held, err := lock.Acquire(context.Background(), dir, lock.Options{Command: "strata pin x y"})
	if err != nil {
		t.Fatal(err)
	}
	stderr := &signalWriter{want: `waiting up to 1m0s for the repository lock held by "strata pin x y"`, seen: make(chan struct{})}
	done := make(chan int)
	go func() {
		var out bytes.Buffer
		done <- cli.Main([]string{"--root", dir, "--wait", "1m", "render", "--no-cache"}, &out, stderr)
	}()
	select {
	case <-stderr.seen:
	case code := <-done:
		t.Fatalf("render ended (exit %d) without waiting: %s", code, stderr.buf.String())
	}
	held.Release()
	if code := <-done; code != 0 {
		t.Fatalf("render after the wait: exit %d: %s", code, stderr.buf.String())
	}
}

// A rollout takes the repository lock only while it writes (a step), never
// for its whole run: it starts beside another command that holds it (and
// goes on to say what is wrong: here, nowhere to push).
func TestRolloutStartsBesideTheLock(t *testing.T) {
	dir := newFleet(t)
	held, err := lock.Acquire(context.Background(), dir, lock.Options{Command: "strata rollout a b patch-001"})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	var out, errOut bytes.Buffer
	cli.Main([]string{"--root", dir, "rollout", "workload-cluster", "podinfo", "patch-002"}, &out, &errOut)
	if got := errOut.String(); strings.Contains(got, "locked") || !strings.Contains(got, "no upstream") {
		t.Errorf("strata rollout beside the holder: %q; want it to start and find no upstream", got)
	}
	// A dry run changes nothing: it runs beside the holder (and goes on
	// to say what is wrong with its arguments).
	errOut.Reset()
	cli.Main([]string{"--root", dir, "rollout", "a", "b", "patch-002", "--dry-run"}, &out, &errOut)
	if got := errOut.String(); strings.Contains(got, "locked") || !strings.Contains(got, `unknown cluster type "a"`) {
		t.Errorf("strata rollout --dry-run beside the holder: %q", got)
	}
}

// A render paused after reading older configuration never writes over the
// output of a render of newer configuration: the second render waits for
// the first, then renders the newer configuration. Without the lock, the
// first would resume and write its older output last.
func TestLateRenderOfOlderConfigurationNeverWins(t *testing.T) {
	dir := newFleet(t)
	paused, resume := pauseFirstRender(t)
	first := make(chan int)
	var firstErr bytes.Buffer
	go func() {
		var out bytes.Buffer
		first <- cli.Main([]string{"--root", dir, "render", "--no-cache"}, &out, &firstErr)
	}()
	<-paused

	// Newer configuration, rendered by a second process while the first
	// holds its older output.
	bumpPodinfo(t, dir)
	stderr := &signalWriter{want: "waiting up to", seen: make(chan struct{})}
	second := make(chan int)
	go func() {
		var out bytes.Buffer
		second <- cli.Main([]string{"--root", dir, "--wait", "1m", "render"}, &out, stderr)
	}()
	select {
	case <-stderr.seen:
	case code := <-second:
		close(resume)
		<-first
		t.Fatalf("the second render did not wait for the first (exit %d)", code)
	}
	close(resume)
	if code := <-first; code != 0 {
		t.Fatalf("first render: exit %d: %s", code, firstErr.String())
	}
	if code := <-second; code != 0 {
		t.Fatalf("second render: exit %d: %s", code, stderr.buf.String())
	}
	var out bytes.Buffer
	if code := cli.Main([]string{"--root", dir, "render", "--check"}, &out, &out); code != 0 {
		t.Fatalf("rendered/ does not match the newer configuration:\n%s", out.String())
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "rendered/*/*/*/templates/podinfo.yaml"))
	for _, m := range matches {
		if data, _ := os.ReadFile(m); !bytes.Contains(data, []byte("6.9.9")) {
			t.Errorf("%s does not hold the newer configuration", m)
		}
	}
	if len(matches) == 0 {
		t.Fatal("no podinfo output rendered")
	}
}

// render --check waits for a render that is switching rendered/ instead of
// reporting its half-switched tree as stale: paused before the switch, the
// writer holds the lock; the check waits, then finds the tree up to date.
// Without the lock it would report the files of the new configuration as
// out of date.
func TestCheckWaitsForARenderInProgress(t *testing.T) {
	dir := newFleet(t)
	paused, resume := pauseFirstRender(t)
	bumpPodinfo(t, dir)
	writer := make(chan int)
	var writerErr bytes.Buffer
	go func() {
		var out bytes.Buffer
		writer <- cli.Main([]string{"--root", dir, "render"}, &out, &writerErr)
	}()
	<-paused
	stderr := &signalWriter{want: "waiting up to", seen: make(chan struct{})}
	check := make(chan int)
	var checkOut bytes.Buffer
	go func() {
		check <- cli.Main([]string{"--root", dir, "--wait", "1m", "render", "--check"}, &checkOut, stderr)
	}()
	select {
	case <-stderr.seen:
	case code := <-check:
		close(resume)
		<-writer
		t.Fatalf("render --check did not wait for the render in progress (exit %d):\n%s", code, checkOut.String())
	}
	close(resume)
	if code := <-writer; code != 0 {
		t.Fatalf("render: exit %d: %s", code, writerErr.String())
	}
	if code := <-check; code != 0 {
		t.Fatalf("render --check after the render: exit %d:\n%s%s", code, checkOut.String(), stderr.buf.String())
	}
}

// pauseFirstRender makes the first render of the test stop before it
// changes rendered/ (holding the lock): paused is closed then, and it goes
// on when resume is closed.
func pauseFirstRender(t *testing.T) (paused, resume chan struct{}) {
	paused, resume = make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	t.Cleanup(cli.SetRenderedHook(func() {
		if calls.Add(1) == 1 {
			close(paused)
			<-resume
		}
	}))
	return paused, resume
}

// bumpPodinfo changes the configuration of strata init's fleet: podinfo
// 6.7.1 becomes 6.9.9.
func bumpPodinfo(t *testing.T, dir string) {
	t.Helper()
	values := filepath.Join(dir, "config/workload-cluster/podinfo/values.yaml")
	data, err := os.ReadFile(values)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(values, bytes.Replace(data, []byte(`"6.7.1"`), []byte(`"6.9.9"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A rollout holds its patch's lock, not the repository's: a second run of
// the same patch fails at once naming the first, while the commands that
// write the repository run beside it.
func TestRolloutOfAPatchInFlightNamesTheHolder(t *testing.T) {
	dir := newFleet(t)
	held, err := lock.AcquireRollout(context.Background(), dir, "workload-cluster/podinfo/patch-001",
		lock.Options{Command: "strata rollout workload-cluster podinfo patch-001"})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	var out, errOut bytes.Buffer
	code := cli.Main([]string{"--root", dir, "rollout", "workload-cluster", "podinfo", "patch-001.yaml"}, &out, &errOut)
	want := `the rollout of workload-cluster/podinfo/patch-001 is locked by "strata rollout workload-cluster podinfo patch-001" (pid `
	if code != 5 || !strings.Contains(errOut.String(), want) {
		t.Errorf("second rollout: exit %d, stderr %q; want exit 5 naming the holder (%s)", code, errOut.String(), want)
	}
	out.Reset()
	errOut.Reset()
	if code := cli.Main([]string{"--root", dir, "render"}, &out, &errOut); code != 0 {
		t.Errorf("strata render beside a rollout: exit %d, stderr %q", code, errOut.String())
	}
}
