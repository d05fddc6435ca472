package status

import (
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/rollout/inflight"
)

// A revert's reason and a hold come from commit messages and trailers
// anyone who can push writes: the rollouts' rows (table and page) show
// their escape sequences, and send none to the terminal.
func TestRolloutRowsPrintable(t *testing.T) {
	s := &Status{Rollouts: []inflight.Flight{{Patch: "workload/demo/patch-001", At: "integration",
		HeldBy:      "frozen by \x1b]0;owned\x07Mallory",
		LastFailure: &inflight.Failed{Source: "revert", Commit: "0123456789abcdef", Reason: "check smoke failed \x1b[2J\x1b[31mALL CLEAR\x1b[0m"}}}}
	rows := s.RolloutRows()
	if len(rows) != 1 {
		t.Fatalf("rows %+v", rows)
	}
	r := rows[0]
	for _, text := range []string{r.HeldBy, r.LastFailure, r.Waiting} {
		if strings.ContainsRune(text, 0x1b) || strings.ContainsRune(text, 0x07) {
			t.Errorf("a row sends a control character to the terminal: %q", text)
		}
	}
	if want := "reverted in 0123456789ab: check smoke failed ^[[2J^[[31mALL CLEAR^[[0m"; r.LastFailure != want {
		t.Errorf("last failure %q, want %q", r.LastFailure, want)
	}
}
