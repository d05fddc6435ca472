package cli_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
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
// while another process holds its lock; the ones that only read do not
// need it.
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
		{"promote", "--resume"},
	} {
		var out, errOut bytes.Buffer
		code := cli.Main(append([]string{"--root", dir}, args...), &out, &errOut)
		if code != 1 || !strings.Contains(errOut.String(), `the repository is locked by "strata promote a b c" (pid `) {
			t.Errorf("strata %s: exit %d, stderr %q; want exit 1 naming the holder", strings.Join(args, " "), code, errOut.String())
		}
	}
	for _, args := range [][]string{{"render", "--check"}, {"status"}} {
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

// A rollout holds the repository lock from its start to its end, waits
// included: it does not start while another command holds it.
func TestRolloutNeedsTheLock(t *testing.T) {
	dir := newFleet(t)
	held, err := lock.Acquire(context.Background(), dir, lock.Options{Command: "strata rollout a b patch-001"})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	var out, errOut bytes.Buffer
	code := cli.Main([]string{"--root", dir, "rollout", "a", "b", "patch-002"}, &out, &errOut)
	if code != 1 || !strings.Contains(errOut.String(), `the repository is locked by "strata rollout a b patch-001" (pid `) {
		t.Errorf("strata rollout: exit %d, stderr %q; want exit 1 naming the holder", code, errOut.String())
	}
	// A dry run changes nothing: it runs beside the holder (and goes on
	// to say what is wrong with its arguments).
	errOut.Reset()
	cli.Main([]string{"--root", dir, "rollout", "a", "b", "patch-002", "--dry-run"}, &out, &errOut)
	if got := errOut.String(); strings.Contains(got, "locked") || !strings.Contains(got, `unknown cluster type "a"`) {
		t.Errorf("strata rollout --dry-run beside the holder: %q", got)
	}
}
