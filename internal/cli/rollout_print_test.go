package cli

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/rollout"
)

// On a terminal, waits and soaks are one status line, redrawn in place,
// that the next event's line replaces; elsewhere every event is a line,
// but a wait that says nothing new.
func TestRolloutPrinter(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 22, 0, 0, 0, time.UTC)
	apps := []rollout.AppState{
		{ArgoCD: "hub", Cluster: "a", Name: "a-demo", State: "healthy"},
		{ArgoCD: "hub", Cluster: "b", Name: "b-demo", State: "waiting"},
	}
	events := []rollout.Event{
		{Kind: rollout.KindPromoted, Commit: "0123456789abcdef", Message: "Promote patch-001 of spoke/demo to eu-west1: 1 of 3 targets' rendered output changed"},
		{Kind: rollout.KindWaiting, Step: "eu-west1", Commit: "0123456789abcdef", Apps: apps, Synced: 1, Healthy: 1, Total: 2, Since: t0},
		{Kind: rollout.KindWaiting, Step: "eu-west1", Commit: "0123456789abcdef", Apps: apps, Synced: 1, Healthy: 1, Total: 2, Since: t0},
		{Kind: rollout.KindSoaking, Step: "eu-west1", Healthy: 2, Total: 2, SoakUntil: t0.Add(5 * time.Minute)},
		{Kind: rollout.KindCheck, Step: "eu-west1", Check: "smoke", Passed: true},
	}
	run := func(tty bool) string {
		var out bytes.Buffer
		p := &rolloutPrinter{w: &out, tty: tty, stop: make(chan struct{}), now: func() time.Time { return t0.Add(42 * time.Second) }}
		for _, e := range events {
			p.event(e)
		}
		p.redraw() // a tick
		return out.String()
	}
	wantTTY := "0123456789ab Promote patch-001 of spoke/demo to eu-west1: 1 of 3 targets' rendered output changed\n" +
		"\r\033[Keu-west1: 1/2 Applications synced at 0123456789ab, 1/2 healthy (42s); waiting for b-demo on hub: waiting" +
		"\r\033[Keu-west1: 1/2 Applications synced at 0123456789ab, 1/2 healthy (42s); waiting for b-demo on hub: waiting" +
		"\r\033[Keu-west1: soaking, 2/2 healthy, 4m18s left" +
		"\r\033[Keu-west1: check smoke passed\n"
	if d := cmp.Diff(wantTTY, run(true)); d != "" {
		t.Errorf("terminal (-want +got):\n%s", d)
	}
	wantLines := "0123456789ab Promote patch-001 of spoke/demo to eu-west1: 1 of 3 targets' rendered output changed\n" +
		"eu-west1: 1/2 Applications synced at 0123456789ab, 1/2 healthy (42s); waiting for b-demo on hub: waiting\n" +
		"eu-west1: soaking, 2/2 healthy, 4m18s left\n" +
		"eu-west1: check smoke passed\n"
	if d := cmp.Diff(wantLines, run(false)); d != "" {
		t.Errorf("lines (-want +got):\n%s", d)
	}
}

// The events of a wave's step name the wave's nodes, cut as lists are.
func TestRolloutLineNamesTheWave(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 22, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		nodes []string
		want  string
	}{
		{nil, "production/r1: soaking, 2/2 healthy, 5m0s left\n"},
		{[]string{"production/r1", "production/r2"}, "production/r1, production/r2: soaking, 2/2 healthy, 5m0s left\n"},
		{[]string{"production/r1", "production/r2", "production/r3", "production/r4", "production/r5"},
			"production/r1, production/r2, production/r3 and 2 more: soaking, 2/2 healthy, 5m0s left\n"},
	} {
		e := rollout.Event{Kind: rollout.KindSoaking, Step: "production/r1", Nodes: tc.nodes, Healthy: 2, Total: 2, SoakUntil: t0.Add(5 * time.Minute)}
		if got := rolloutLine(e, t0); got != tc.want {
			t.Errorf("rolloutLine(%q) = %q, want %q", tc.nodes, got, tc.want)
		}
	}
}

// A check that passed for the step's commit in an earlier run says so.
func TestRolloutLineRecordedCheck(t *testing.T) {
	e := rollout.Event{Kind: rollout.KindCheck, Step: "eu-west1", Check: "smoke", Passed: true, Recorded: true,
		Message: "passed for this patch and step commit at 2026-11-27T05:40:00Z (recorded in refs/strata/record, 3276ca7ed105); not run again"}
	want := "eu-west1: check smoke passed for this patch and step commit at 2026-11-27T05:40:00Z (recorded in refs/strata/record, 3276ca7ed105); not run again\n"
	if got := rolloutLine(e, time.Time{}); got != want {
		t.Errorf("rolloutLine = %q, want %q", got, want)
	}
}

// A commit message (a step's subject) reaches the terminal with its escape sequences shown, not
// obeyed.
func TestRolloutLinePrintable(t *testing.T) {
	e := rollout.Event{Kind: rollout.KindPromoted, Commit: "0123456789abcdef", Message: "Promote patch-001\x1b[2K\rdone: every step passed"}
	if got, want := rolloutLine(e, time.Time{}), "0123456789ab Promote patch-001^[[2K^Mdone: every step passed\n"; got != want {
		t.Errorf("rolloutLine = %q, want %q", got, want)
	}
}

// Where config.yaml names revisions, an Application waited on is named with
// its target's revisions by name, the root's with what its root deployed.
func TestRolloutLineNamesRevisions(t *testing.T) {
	apps := []rollout.AppState{{ArgoCD: "ops-01", Cluster: "ops-01", Name: "hypershift", State: "waiting", Revision: "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d",
		Revisions: []fleet.RevisionByName{{Name: "root", Revision: "main"}, {Name: "charts", Revision: "826fa76d08fc2ce87c863196e52d5a4fa9259a82"}}}}
	t0 := time.Date(2026, 11, 23, 22, 0, 0, 0, time.UTC)
	e := rollout.Event{Kind: rollout.KindWaiting, Step: "production", Commit: "0123456789abcdef", Apps: apps, Total: 1, Since: t0}
	want := "production: 0/1 Applications synced at 0123456789ab, 0/1 healthy (0s); waiting for hypershift on ops-01: waiting" +
		" (at root main (deployed 1a2b3c4d5e6f), charts 826fa76d08fc)\n"
	if got := rolloutLine(e, t0); got != want {
		t.Errorf("rolloutLine = %q, want %q", got, want)
	}
}
