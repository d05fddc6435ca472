//go:build linux

package rollout_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/rollout"
	"github.com/strata-fleet/strata/internal/testgit"
)

// TestCheckNotes plays scheduled jobs, each --once run from a fresh clone
// of the remote: a step's checks that passed are recorded in a git note on
// its commit, so the runs after it, while the next step waits at a manual
// gate, do not run them again.
func TestCheckNotes(t *testing.T) {
	api := startAPI(t)
	t.Run("runs from fresh clones at a gate run the checks once", func(t *testing.T) { testNotesOnce(t, newHarness(t, api)) })
	t.Run("a check whose definition changed runs again", func(t *testing.T) { testNotesChanged(t, newHarness(t, api)) })
	t.Run("a notes push racing another clone's keeps both notes", func(t *testing.T) { testNotesRace(t, newHarness(t, api)) })
	t.Run("a check that fails is not recorded", func(t *testing.T) { testNotesFailed(t, newHarness(t, api)) })
	t.Run("notes the remote refuses fail no step", func(t *testing.T) { testNotesRefused(t, newHarness(t, api)) })
}

// smoke is a check that appends its step to the file ran.
func smoke(ran, suffix string) string {
	return fmt.Sprintf("  checks:\n    - {name: smoke, command: 'echo $STRATA_STEP%s >> %s'}\n", suffix, ran)
}

// freshClone makes the harness work in a new clone of the remote, as a
// scheduled job starts.
func (h *harness) freshClone() { h.freshCloneAs("origin") }

// freshCloneAs is freshClone with the remote named remote.
func (h *harness) freshCloneAs(remote string) {
	h.t.Helper()
	dir := filepath.Join(h.t.TempDir(), "clone")
	h.run("", "clone", "-q", "-o", remote, h.bare, dir)
	h.dir, h.git = dir, rollout.ExecGit{Dir: dir, Env: testgit.Env}
}

// ranChecks are the lines the smoke check wrote.
func ranChecks(t *testing.T, ran string) []string {
	t.Helper()
	data, err := os.ReadFile(ran)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Fields(string(data))
}

// toGate rolls the patch out with --once runs, a soak of an hour, up to
// the production gate; the last step's checks run in a fresh clone.
func (h *harness) toGate(ran string) {
	h.t.Helper()
	h.configure(smoke(ran, ""), "")
	h.write(firstPatch, patch)
	soak := time.Hour
	for i, want := range []string{rollout.StoppedPending, rollout.StoppedPending, rollout.StoppedGate} {
		if i == 2 {
			h.freshClone()
		}
		if stopped, _, err := h.once(rollout.Options{Soak: &soak}); err != nil || stopped != want {
			h.t.Fatalf("run %d: %s, %v; want %s", i+1, stopped, err, want)
		}
		h.clock.Step(2 * time.Hour)
	}
}

// recorded are the KindCheck events of the last run that say the check
// was not run again.
func (h *harness) recorded() []string {
	var out []string
	for _, e := range h.events {
		if e.Kind == rollout.KindCheck && e.Recorded {
			out = append(out, e.Step+" "+e.Check+": "+e.Message)
		}
	}
	return out
}

func testNotesOnce(t *testing.T, h *harness) {
	ran := filepath.Join(t.TempDir(), "ran")
	h.toGate(ran)
	// The second run's remote has a name that cannot be part of a ref
	// as it is: its notes are fetched all the same.
	for run, remote := range []string{"origin", "team/fleet"} {
		h.freshCloneAs(remote)
		soak := time.Hour
		if stopped, _, err := h.once(rollout.Options{Soak: &soak}); err != nil || stopped != rollout.StoppedGate {
			t.Fatalf("run %d at the gate: %s, %v; want stopped at the gate", run+1, stopped, err)
		}
		got := h.recorded()
		if len(got) != 1 || !strings.HasPrefix(got[0], "integration smoke: passed at ") ||
			!strings.HasSuffix(got[0], " (recorded in refs/notes/strata); not run again") {
			t.Errorf("run %d at the gate: recorded checks %q, want smoke of integration", run+1, got)
		}
	}
	// rollout --all --once fetches and reads the notes alike.
	h.freshClone()
	soak := time.Hour
	if r := h.onceAll(rollout.Options{Soak: &soak})[demoPatch]; r.Err != nil || r.Result == nil || r.Result.Stopped != rollout.StoppedGate {
		t.Fatalf("rollout --all --once at the gate: %+v; want stopped at the gate", r)
	}
	if got := h.recorded(); len(got) != 1 {
		t.Errorf("rollout --all --once at the gate: recorded checks %q, want smoke of integration", got)
	}
	if d := cmp.Diff([]string{"integration/us-east1", "integration"}, ranChecks(t, ran)); d != "" {
		t.Errorf("checks run (-want +got):\n%s", d)
	}
	note := h.run(h.bare, "notes", "--ref", "strata", "show", "main")
	if !strings.Contains(note, `"check":"smoke"`) || !strings.Contains(note, `"step":"integration"`) {
		t.Errorf("the remote's note on the last step:\n%s", note)
	}
}

func testNotesChanged(t *testing.T, h *harness) {
	ran := filepath.Join(t.TempDir(), "ran")
	h.toGate(ran)
	h.freshClone()
	h.configure(smoke(ran, "-changed"), "")
	// Argo CD syncs the new commit: the step soaks again.
	soak := time.Hour
	h.freshClone()
	if stopped, _, err := h.once(rollout.Options{Soak: &soak}); err != nil || stopped != rollout.StoppedPending {
		t.Fatalf("the run after the change: %s, %v; want soaking again", stopped, err)
	}
	h.clock.Step(2 * time.Hour)
	for run := range 2 {
		h.freshClone()
		if stopped, _, err := h.once(rollout.Options{Soak: &soak}); err != nil || stopped != rollout.StoppedGate {
			t.Fatalf("run %d with the check changed: %s, %v; want stopped at the gate; last event %+v", run+1, stopped, err, h.events[len(h.events)-1])
		}
	}
	want := []string{"integration/us-east1", "integration", "integration-changed"}
	if d := cmp.Diff(want, ranChecks(t, ran)); d != "" {
		t.Errorf("checks run (-want +got):\n%s", d)
	}
}

func testNotesRace(t *testing.T, h *harness) {
	ran := filepath.Join(t.TempDir(), "ran")
	// Another clone pushes a note on the same commit just before the
	// rollout pushes its own: the rollout's push is refused.
	var notesPushes int
	other := filepath.Join(t.TempDir(), "other")
	h.run("", "clone", "-q", h.bare, other)
	h.onGit = func(args []string) {
		if args[0] != "push" || !strings.Contains(strings.Join(args, " "), "refs/notes/strata:") {
			return
		}
		notesPushes++
		if notesPushes != 2 { // the first is the first step's, in the first clone
			return
		}
		h.run(other, "fetch", "-q", "origin", "main", "refs/notes/strata:refs/notes/strata")
		h.run(other, "notes", "--ref", "strata", "add", "-m", "a note of another clone", "FETCH_HEAD")
		h.run(other, "push", "-q", "origin", "refs/notes/strata")
	}
	h.toGate(ran)
	if notesPushes != 3 {
		t.Errorf("%d pushes of the notes, want 3 (one for the first step, one refused, one merged)", notesPushes)
	}
	note := h.run(h.bare, "notes", "--ref", "strata", "show", "main")
	if !strings.Contains(note, "a note of another clone") || !strings.Contains(note, `"step":"integration"`) {
		t.Errorf("the remote's note on the last step, want both clones' lines:\n%s", note)
	}
	first := h.run(h.bare, "notes", "--ref", "strata", "show", "main~1")
	if !strings.Contains(first, `"step":"integration/us-east1"`) {
		t.Errorf("the remote's note on the first step:\n%s", first)
	}
	if got := h.run(h.bare, "rev-list", "--count", "refs/notes/strata"); got != "4" {
		t.Errorf("the remote's notes have %s commits, want 4 (no force-push: the first step's, the other clone's, the last step's and their merge)", got)
	}
}

func testNotesFailed(t *testing.T, h *harness) {
	h.configure("  checks:\n    - {name: smoke, command: 'exit 3'}\n", "")
	h.write(firstPatch, patch)
	var se *rollout.StepError
	if _, _, err := h.once(rollout.Options{}); !errors.As(err, &se) {
		t.Fatalf("the run: %v, want the step failed", err)
	}
	if notes := h.run(h.dir, "notes", "--ref", "strata", "list"); notes != "" {
		t.Errorf("notes of a failed check: %s", notes)
	}
	h.freshClone()
	if _, _, err := h.once(rollout.Options{}); !errors.As(err, &se) || len(h.recorded()) != 0 {
		t.Fatalf("the next run: %v, recorded %q; want the check run again and failed", err, h.recorded())
	}
}

func testNotesRefused(t *testing.T, h *harness) {
	hook := "#!/bin/sh\nwhile read old new ref; do case $ref in refs/notes/*) echo notes refused >&2; exit 1;; esac; done\n"
	if err := os.WriteFile(filepath.Join(h.bare, "hooks", "pre-receive"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	ran := filepath.Join(t.TempDir(), "ran")
	h.toGate(ran) // every run passes
	if notes := h.run(h.bare, "for-each-ref", "refs/notes"); notes != "" {
		t.Errorf("the remote has notes: %s", notes)
	}
	// Not recorded on the remote: the next run from a fresh clone runs
	// the check again.
	h.freshClone()
	soak := time.Hour
	if stopped, _, err := h.once(rollout.Options{Soak: &soak}); err != nil || stopped != rollout.StoppedGate {
		t.Fatalf("the run at the gate: %s, %v; want stopped at the gate", stopped, err)
	}
	if d := cmp.Diff([]string{"integration/us-east1", "integration", "integration"}, ranChecks(t, ran)); d != "" {
		t.Errorf("checks run (-want +got):\n%s", d)
	}
}
