package output

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/render"
)

// The plan's changes, kept packed until finish (an op and a name index
// per change), come out as the changes recorded: every op, a path outside
// its target's directory, a directory-less deletion, and a name index too
// large to pack.
func TestPackedChangesAreTheRecordedOnes(t *testing.T) {
	w := &writer{queue: make(chan *render.Output)}
	w.record("rendered/a", []Change{
		{Op: Create, Path: "rendered/a/apps/x.yaml"},
		{Op: Update, Path: "rendered/a/values.yaml"},
		{Op: Delete, Path: "rendered/a/apps/old.yaml"},
		{Op: Create, Path: "rendered/b/outside.yaml"},
	}, 3)
	w.record("rendered/c", []Change{{Op: Update, Path: "rendered/c/values.yaml"}}, 1)
	w.record("", []Change{{Op: Delete, Path: "rendered/stale.yaml"}}, 0)
	plan, err := w.finish()
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{
		{Op: Create, Path: "rendered/a/apps/x.yaml"},
		{Op: Update, Path: "rendered/a/values.yaml"},
		{Op: Create, Path: "rendered/b/outside.yaml"},
		{Op: Update, Path: "rendered/c/values.yaml"},
		{Op: Delete, Path: "rendered/a/apps/old.yaml"},
		{Op: Delete, Path: "rendered/stale.yaml"},
	}
	if diff := cmp.Diff(want, plan.Changes); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	if plan.Unchanged != 4 {
		t.Errorf("unchanged %d, want 4", plan.Unchanged)
	}
	for _, op := range ops {
		if p, ok := pack(op, 1<<30-1); !ok {
			t.Errorf("pack(%s, 1<<30-1) failed", op)
		} else if gotOp, gotName := unpack(p); gotOp != op || gotName != 1<<30-1 {
			t.Errorf("unpack(pack(%s, 1<<30-1)) = %s, %d", op, gotOp, gotName)
		}
		if _, ok := pack(op, 1<<30); ok {
			t.Errorf("pack(%s, 1<<30) packed a name index that does not fit", op)
		}
	}
}
