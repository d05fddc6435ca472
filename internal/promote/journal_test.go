package promote

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/localstate"
)

// The journal lives in the checkout's local state, outside the repository:
// an interrupted promotion leaves nothing in the working tree, and
// NewDirOps puts the journal under $STRATA_CACHE_DIR, keyed by checkout.
func TestJournalIsOutsideTheRepository(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("STRATA_CACHE_DIR", cache)
	dir := t.TempDir()
	writeTree(t, dir, realConfig, patchesAt("integration/int-sector-1/us-central1"))
	start := readTree(t, dir)
	ops, err := NewDirOps(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := mustPrepare(t, loadDir(t, dir), Options{})
	if _, didCrash := applyWithFault(&faultyOps{DirOps: ops, at: 1, fault: crash}, p); !didCrash {
		t.Fatal("no crash")
	}
	if diff := cmp.Diff(start, readTree(t, dir)); diff != "" {
		t.Errorf("the repository changed before the first operation (-before +after):\n%s", diff)
	}
	state, err := localstate.Dir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(state, JournalName)); err != nil {
		t.Fatalf("no journal in the local state: %v", err)
	}
	if !strings.HasPrefix(state, cache) {
		t.Errorf("local state %s is not under $STRATA_CACHE_DIR %s", state, cache)
	}
	if j, err := Pending(ops); err != nil || j == nil || !j.Is(ct, app, "patch-001") || j.Stage != StageFiles {
		t.Fatalf("Pending = %+v, %v", j, err)
	}
	other, err := NewDirOps(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if j, err := Pending(other); j != nil || err != nil {
		t.Errorf("another checkout sees the journal: %+v, %v", j, err)
	}
}

// A journal committed into the repository where strata once kept it is
// never read: its operations are not performed, and a promotion runs as if
// it were not there.
func TestCommittedJournalIsNeverReplayed(t *testing.T) {
	dir := t.TempDir()
	victim := patchFile("integration", "patch-009")
	forged := fmt.Sprintf(`{"version": 1, "stage": "files", "plan": {"clusterType": %q, "component": %q, "patch": "patch-009", "ops": [{"op": "write", "path": %q, "data": "eDogMQo="}]}}`, ct, app, victim)
	writeTree(t, dir, realConfig, with(patchesAt("integration/int-sector-1/us-central1"), map[string]string{CommittedJournal: forged}))
	ops := testOps(dir)
	if j, err := Pending(ops); j != nil || err != nil {
		t.Fatalf("Pending read the committed journal: %+v, %v", j, err)
	}
	if err := applyAll(ops, mustPrepare(t, loadDir(t, dir), Options{})); err != nil {
		t.Fatal(err)
	}
	tree := readTree(t, dir)
	if _, ok := tree[victim]; ok {
		t.Errorf("the committed journal's write was performed: %s", victim)
	}
	if tree[CommittedJournal] != forged {
		t.Errorf("the committed journal was changed")
	}
}

// A promotion asked for while another is unfinished is refused before
// anything is done, naming both and the commands that finish or drop the
// unfinished one; Finish does not drop a journal whose files are not done.
func TestApplyRefusesWhileAnotherPromotionIsPending(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, realConfig, with(patchesAt("integration/int-sector-1/us-central1"),
		map[string]string{patchFile("integration/int-sector-1/us-central1", "patch-002"): "applications:\n  test-app:\n    project: other\n"}))
	ops := testOps(dir)
	unfinished := mustPrepare(t, loadDir(t, dir), Options{Patch: "patch-002"})
	if _, didCrash := applyWithFault(&faultyOps{DirOps: ops, at: 1, fault: crash}, unfinished); !didCrash {
		t.Fatal("no crash")
	}
	before := readTree(t, dir)
	err := Apply(ops, mustPrepare(t, loadDir(t, dir), Options{}))
	var pe *PendingError
	if !errors.As(err, &pe) {
		t.Fatalf("Apply: %v, want a *PendingError", err)
	}
	for _, want := range []string{"patch-002 of management-cluster/test-app", "before promoting patch-001 of management-cluster/test-app", "strata promote --resume", "strata promote --abandon"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if diff := cmp.Diff(before, readTree(t, dir)); diff != "" {
		t.Errorf("files changed (-before +after):\n%s", diff)
	}
	if err := Finish(ops); err == nil || !strings.Contains(err.Error(), "strata promote --resume") {
		t.Errorf("Finish of a journal at the files stage: %v, want a refusal", err)
	}
	if j, _ := Pending(ops); j == nil {
		t.Fatal("Finish dropped a journal at the files stage")
	}
	j, err := Abandon(ops)
	if err != nil || j == nil || !j.Is(ct, app, "patch-002") {
		t.Fatalf("Abandon = %+v, %v", j, err)
	}
	if j, err := Pending(ops); j != nil || err != nil {
		t.Errorf("after Abandon, Pending = %+v, %v", j, err)
	}
	if diff := cmp.Diff(before, readTree(t, dir)); diff != "" {
		t.Errorf("Abandon changed files (-before +after):\n%s", diff)
	}
}

// TestResumeRefusesAForgedJournal: a journal is a file its owner can edit;
// operations outside config/ are refused before any is performed.
func TestResumeRefusesAForgedJournal(t *testing.T) {
	for _, bad := range []Op{
		{Kind: "write", Path: "../outside.yaml", Data: []byte("x: 1\n")},
		{Kind: "write", Path: "config/../../outside.yaml", Data: []byte("x: 1\n")},
		{Kind: "remove", Path: "/etc/passwd"},
		{Kind: "write", Path: ".git/config"},
		{Kind: "chmod", Path: "config/x.yaml"},
	} {
		t.Run(bad.Kind+" "+bad.Path, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, realConfig, patchesAt("integration"))
			good := Op{Kind: "remove", Path: patchFile("integration", "patch-001")}
			journal := fmt.Sprintf(`{"version": 1, "stage": "files", "plan": {"patch": "patch-001", "ops": [%s, %s]}}`, opJSON(good), opJSON(bad))
			ops := testOps(dir)
			if err := ops.WriteJournal([]byte(journal)); err != nil {
				t.Fatal(err)
			}
			startTree := readTree(t, dir)
			_, err := Resume(ops)
			if err == nil {
				t.Fatal("Resume performed a forged journal")
			}
			if !strings.Contains(err.Error(), "promotion journal") {
				t.Errorf("error does not name the journal: %v", err)
			}
			if diff := cmp.Diff(startTree, readTree(t, dir)); diff != "" {
				t.Errorf("Resume changed files (-before +after):\n%s", diff)
			}
		})
	}
}

func opJSON(op Op) string {
	return fmt.Sprintf(`{"op": %q, "path": %q, "data": "eDogMQo="}`, op.Kind, op.Path)
}

// TestDamagedJournal: a journal that is not JSON, of another version or
// without a plan is reported, saying what to do.
func TestDamagedJournal(t *testing.T) {
	for _, tt := range []struct{ journal, want string }{
		{"{not json", "the promotion journal is damaged"},
		{`{"version": 7, "stage": "files", "plan": {}}`, "the promotion journal has version 7"},
		{`{"version": 1, "stage": "files"}`, "the promotion journal is damaged"},
		{`{"version": 1, "stage": "later", "plan": {}}`, "the promotion journal is damaged"},
	} {
		dir := t.TempDir()
		ops := testOps(dir)
		if err := ops.WriteJournal([]byte(tt.journal)); err != nil {
			t.Fatal(err)
		}
		_, err := Pending(ops)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "strata promote --abandon") {
			t.Errorf("Pending of %s: %v, want %q and how to drop it", tt.journal, err, tt.want)
		}
		if _, err := Abandon(ops); err != nil {
			t.Errorf("Abandon of a damaged journal: %v", err)
		}
		if j, err := Pending(ops); j != nil || err != nil {
			t.Errorf("after Abandon: %+v, %v", j, err)
		}
	}
}
