package lock_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/strata-fleet/strata/internal/lock"
)

func setup(t *testing.T) string {
	t.Helper()
	t.Setenv("STRATA_CACHE_DIR", t.TempDir())
	return t.TempDir()
}

// A second Acquire that does not wait fails at once, naming the holder;
// once the holder releases the lock it succeeds.
func TestSecondAcquireFailsNamingTheHolder(t *testing.T) {
	repo := setup(t)
	first, err := lock.Acquire(context.Background(), repo, lock.Options{Command: "strata render"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = lock.Acquire(context.Background(), repo, lock.Options{Command: "strata promote"})
	var held *lock.HeldError
	if !errors.As(err, &held) {
		t.Fatalf("second Acquire = %v, want a HeldError", err)
	}
	if held.Holder.PID != os.Getpid() || held.Holder.Command != "strata render" || held.Holder.Since.IsZero() {
		t.Errorf("holder = %+v, want this process running strata render", held.Holder)
	}
	for _, want := range []string{`"strata render"`, "pid ", "since "} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %s", err, want)
		}
	}
	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	second, err := lock.Acquire(context.Background(), repo, lock.Options{Command: "strata promote"})
	if err != nil {
		t.Fatalf("Acquire after Release: %v", err)
	}
	second.Release()
}

// A waiting Acquire says it waits, and takes the lock when the holder
// releases it.
func TestAcquireWaitsForTheHolder(t *testing.T) {
	repo := setup(t)
	first, err := lock.Acquire(context.Background(), repo, lock.Options{Command: "strata render"})
	if err != nil {
		t.Fatal(err)
	}
	waiting := make(chan lock.Holder, 1)
	got := make(chan error, 1)
	go func() {
		l, err := lock.Acquire(context.Background(), repo, lock.Options{
			Command: "strata pin", Wait: time.Minute, Waiting: func(h lock.Holder) { waiting <- h },
		})
		if err == nil {
			l.Release()
		}
		got <- err
	}()
	if h := <-waiting; h.Command != "strata render" {
		t.Errorf("waiting for %+v, want strata render", h)
	}
	first.Release()
	if err := <-got; err != nil {
		t.Fatalf("waiting Acquire: %v", err)
	}
}

// Readers hold the lock together; a writer excludes them and they exclude
// a writer.
func TestSharedLocksExcludeOnlyWriters(t *testing.T) {
	repo := setup(t)
	read := lock.Options{Command: "strata render --check", Shared: true}
	r1, err := lock.Acquire(context.Background(), repo, read)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := lock.Acquire(context.Background(), repo, read)
	if err != nil {
		t.Fatalf("a second reader: %v", err)
	}
	var held *lock.HeldError
	if _, err := lock.Acquire(context.Background(), repo, lock.Options{Command: "strata render"}); !errors.As(err, &held) {
		t.Fatalf("a writer beside readers: %v, want a HeldError", err)
	}
	r1.Release()
	r2.Release()
	w, err := lock.Acquire(context.Background(), repo, lock.Options{Command: "strata render"})
	if err != nil {
		t.Fatalf("a writer once the readers are gone: %v", err)
	}
	defer w.Release()
	_, err = lock.Acquire(context.Background(), repo, read)
	if !errors.As(err, &held) || held.Holder.Command != "strata render" {
		t.Fatalf("a reader beside a writer: %v, want a HeldError naming strata render", err)
	}
}

// A waiting Acquire gives up when its context is done.
func TestAcquireStopsWithTheContext(t *testing.T) {
	repo := setup(t)
	first, err := lock.Acquire(context.Background(), repo, lock.Options{Command: "strata render"})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Release()
	ctx, cancel := context.WithCancel(context.Background())
	_, err = lock.Acquire(ctx, repo, lock.Options{Wait: time.Hour, Waiting: func(lock.Holder) { cancel() }})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire = %v, want context.Canceled", err)
	}
}

// The lock of a process killed with SIGKILL is taken over: the kernel
// released it.
func TestLockOfAKilledProcessIsTakenOver(t *testing.T) {
	repo := setup(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHoldLock$")
	cmd.Env = append(os.Environ(), "STRATA_LOCK_HELPER="+repo)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "locked\n" {
		cmd.Process.Kill()
		t.Fatalf("helper said %q, %v", line, err)
	}
	if _, err := lock.Acquire(context.Background(), repo, lock.Options{}); !errors.As(err, new(*lock.HeldError)) {
		t.Fatalf("Acquire while the helper holds the lock = %v, want a HeldError", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	l, err := lock.Acquire(context.Background(), repo, lock.Options{Command: "strata render"})
	if err != nil {
		t.Fatalf("Acquire after the holder was killed: %v", err)
	}
	l.Release()
}

// TestHelperHoldLock is the process TestLockOfAKilledProcessIsTakenOver
// kills: it takes the lock, says so, and waits to be killed.
func TestHelperHoldLock(t *testing.T) {
	repo := os.Getenv("STRATA_LOCK_HELPER")
	if repo == "" {
		t.Skip("helper process only")
	}
	if _, err := lock.Acquire(context.Background(), repo, lock.Options{Command: "helper"}); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("locked\n")
	select {}
}

// Two rollouts of one patch refuse each other, naming the holder, while a
// rollout of another patch, and the repository's own lock, are free.
func TestRolloutLockIsPerPatch(t *testing.T) {
	repo := setup(t)
	ctx := context.Background()
	first, err := lock.AcquireRollout(ctx, repo, "mc/podinfo/patch-001", lock.Options{Command: "strata rollout mc podinfo patch-001"})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Release()
	_, err = lock.AcquireRollout(ctx, repo, "mc/podinfo/patch-001", lock.Options{Command: "strata rollout mc podinfo patch-001 --approve prod"})
	var held *lock.HeldError
	if !errors.As(err, &held) {
		t.Fatalf("second rollout of the patch: %v, want a HeldError", err)
	}
	if want := `the rollout of mc/podinfo/patch-001 is locked by "strata rollout mc podinfo patch-001" (pid `; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q, want it to start %q", err, want)
	}
	other, err := lock.AcquireRollout(ctx, repo, "mc/podinfo/patch-002", lock.Options{Command: "strata rollout mc podinfo patch-002"})
	if err != nil {
		t.Fatalf("a rollout of another patch: %v", err)
	}
	defer other.Release()
	l, err := lock.Acquire(ctx, repo, lock.Options{Command: "strata render"})
	if err != nil {
		t.Fatalf("the repository's lock beside rollouts: %v", err)
	}
	l.Release()
}
