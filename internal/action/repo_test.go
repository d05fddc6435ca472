package action_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/lock"
	"github.com/strata-fleet/strata/internal/promote"
)

// openFleet writes the fixture with a journal committed inside it and an
// unfinished promotion of patch-001 (config/ promoted, rendered/ not).
func openFleet(t *testing.T) string {
	t.Helper()
	t.Setenv("STRATA_CACHE_DIR", t.TempDir())
	dir := t.TempDir()
	for name, data := range fixture {
		writeFile(t, dir, name, data)
	}
	writeFile(t, dir, promote.CommittedJournal, "{}")
	writeFile(t, dir, "config/edge/podinfo/dev/patch-001.yaml", patch)
	r, err := action.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f, err := r.LoadComponent("edge", "podinfo")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := promote.Prepare(f, promote.Options{ClusterType: "edge", Component: "podinfo", Patch: "patch-001"})
	if err != nil {
		t.Fatal(err)
	}
	ops, err := promote.NewDirOps(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := (&action.Step{Ops: ops}).Apply(plan); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The preamble says, in order, what the command is told about journals,
// each once, before it waits for the lock (held here by another writer).
func TestOpenWithWarnsAboutJournals(t *testing.T) {
	dir := openFleet(t)
	other, err := action.OpenWith(context.Background(), dir, action.Options{Lock: action.ExclusiveLock, Journal: action.NoJournal})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	for _, tc := range []struct {
		journal action.JournalCheck
		want    []string
	}{
		{action.WarnJournal, []string{"committed", "unfinished", "waiting"}},
		{action.OwnJournal, []string{"committed", "waiting"}},
		{action.NoJournal, []string{"waiting"}},
	} {
		var got []string
		o := action.Options{Journal: tc.journal, Resume: "strata promote --resume", Lock: action.ExclusiveLock,
			LockOptions: lock.Options{Wait: time.Millisecond, Waiting: func(lock.Holder) { got = append(got, "waiting") }}}
		o.Warn = func(msg string) {
			switch {
			case strings.HasPrefix(msg, promote.CommittedJournal+" is ignored: "):
				got = append(got, "committed")
			case strings.HasSuffix(msg, ": run strata promote --resume to finish it") && strings.Contains(msg, "patch-001"):
				got = append(got, "unfinished")
			default:
				t.Errorf("unexpected warning %q", msg)
			}
		}
		var held *lock.HeldError
		if _, err := action.OpenWith(context.Background(), dir, o); !errors.As(err, &held) {
			t.Fatalf("beside another writer: %v, want a *lock.HeldError", err)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("journal check %d: warnings (-want +got):\n%s", tc.journal, d)
		}
	}
}

// The lock is held from the preamble until Close, in the mode asked for:
// a shared one beside another reader, never beside a writer.
func TestOpenWithHoldsTheLockUntilClose(t *testing.T) {
	dir := openFleet(t)
	ctx := context.Background()
	w, err := action.OpenWith(ctx, dir, action.Options{Lock: action.ExclusiveLock, Journal: action.NoJournal})
	if err != nil {
		t.Fatal(err)
	}
	var held *lock.HeldError
	if _, err := action.OpenWith(ctx, dir, action.Options{Lock: action.SharedLock}); !errors.As(err, &held) {
		t.Fatalf("a reader beside a writer: %v, want a *lock.HeldError", err)
	}
	w.Close()
	r1, err := action.OpenWith(ctx, dir, action.Options{Lock: action.SharedLock, Journal: action.NoJournal})
	if err != nil {
		t.Fatal(err)
	}
	defer r1.Close()
	r2, err := action.OpenWith(ctx, dir, action.Options{Lock: action.SharedLock, Journal: action.NoJournal})
	if err != nil {
		t.Fatalf("a reader beside a reader: %v", err)
	}
	r2.Close()
	if _, err := action.OpenWith(ctx, dir, action.Options{Lock: action.ExclusiveLock}); !errors.As(err, &held) {
		t.Fatalf("a writer beside a reader: %v, want a *lock.HeldError", err)
	}
}

// Where the local state cannot hold a lock (here a file where its
// directory should be), a reader goes on without it and says so; a
// writer stops.
func TestOpenWithReadsWithoutALockItCannotTake(t *testing.T) {
	dir := openFleet(t)
	cache := filepath.Join(t.TempDir(), "cache")
	if err := os.WriteFile(cache, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("STRATA_CACHE_DIR", cache)
	var warned []string
	o := action.Options{Lock: action.SharedLock, Journal: action.NoJournal, Warn: func(m string) { warned = append(warned, m) }}
	r, err := action.OpenWith(context.Background(), dir, o)
	if err != nil {
		t.Fatalf("a reader without a lock: %v", err)
	}
	r.Close()
	if len(warned) != 1 || !strings.HasPrefix(warned[0], "checking without the repository lock: locking the repository: ") {
		t.Errorf("warnings %q, want one saying it checks without the lock", warned)
	}
	o.Lock = action.ExclusiveLock
	if _, err := action.OpenWith(context.Background(), dir, o); err == nil {
		t.Errorf("a writer went on without the lock")
	}
}

// FinishRendered ends only a promotion whose render is what is left.
func TestFinishRendered(t *testing.T) {
	dir := openFleet(t)
	r, err := action.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	j, err := r.FinishRendered()
	if err != nil {
		t.Fatal(err)
	}
	if j == nil || j.Plan.Patch != "patch-001" {
		t.Fatalf("finished %+v, want the promotion of patch-001", j)
	}
	ops, err := promote.NewDirOps(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p, err := promote.Pending(ops); err != nil || p != nil {
		t.Errorf("journal left after FinishRendered: %v %v", p, err)
	}
	if j, err := r.FinishRendered(); err != nil || j != nil {
		t.Errorf("a second FinishRendered: %v %v, want nothing", j, err)
	}
}
