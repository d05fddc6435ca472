package promote

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestCommitMessage: a step's commit says what moved where and how many
// targets changed, carries the patch's metadata (every recorded approval
// when it is folded), and ends with the Approved-by trailers of the gates
// it entered and the caller's.
func TestCommitMessage(t *testing.T) {
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	jane := Approval{Node: "production", By: "Jane <jane@example.com>", At: at}
	meta := &PatchMeta{Description: "cert-manager 1.15", Owner: "platform", Ticket: "OPS-42", Approvals: []Approval{jane}}
	for _, tc := range []struct {
		name string
		plan *Plan
		r    Rendered
		tr   []string
		want string
	}{{
		name: "a gate entered",
		plan: &Plan{ClusterType: "mc", Component: "cm", Patch: "patch-001", Target: "production/canary", Gates: []string{"production"},
			Approvals: []Approval{jane}, Meta: meta},
		r: Rendered{Changed: []string{"mc/production/canary"}, Total: 5},
		want: `Promote patch-001 of mc/cm to production/canary: 1 of 5 targets' rendered output changed

cert-manager 1.15

Owner: platform
Ticket: OPS-42

Rendered output changed at:
  mc/production/canary

Approved-by: Jane <jane@example.com> for production
`,
	}, {
		name: "a fold",
		plan: &Plan{ClusterType: "mc", Component: "cm", Patch: "patch-001", Coalesced: []Coalesce{{Node: "production"}},
			Integrated: "config/mc/cm/values.yaml", Meta: meta},
		r:  Rendered{Total: 1},
		tr: []string{"Strata-Rollout: mc/cm/patch-001"},
		want: `Coalesce patch-001 of mc/cm at production, fold it into config/mc/cm/values.yaml: 0 of 1 target's rendered output changed

cert-manager 1.15

Owner: platform
Ticket: OPS-42
Recorded approval: production by Jane <jane@example.com> at 2026-11-20T10:00:00Z

No target's rendered output changed.

Strata-Rollout: mc/cm/patch-001
`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := CommitMessage(Subject(tc.plan), tc.plan, tc.r, tc.tr...)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
		})
	}
}
