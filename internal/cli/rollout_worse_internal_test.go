package cli

import "testing"

// TestWorse: rollout --all's code is the worst of its patches', whatever
// order they end in (issue 36: a failed step, then a gate, exited 4).
func TestWorse(t *testing.T) {
	for _, tc := range []struct{ a, b, want int }{
		{exitGate, exitFindings, exitFindings},
		{exitFindings, exitGate, exitFindings},
		{exitPending, exitGate, exitGate},
		{exitGate, exitPending, exitGate},
		{exitFindings, exitFailure, exitFailure},
		{exitFailure, exitFindings, exitFailure},
		{exitOK, exitPending, exitPending},
		{exitPending, exitOK, exitPending},
	} {
		if got := worse(tc.a, tc.b); got != tc.want {
			t.Errorf("worse(%d, %d) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
