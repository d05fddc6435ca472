package action_test

import (
	"context"
	"errors"
	"testing"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/promote"
)

// An interrupted promotion is shown by a dry run, refuses another patch's
// promotion, and is the only step a run of its own patch takes.
func TestPromoteCompletesTheInterruptedOneFirst(t *testing.T) {
	dir := openFleet(t)
	r, err := action.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	opts := promote.Options{ClusterType: "edge", Component: "podinfo", Patch: "patch-001"}

	res, err := (&action.Promote{Options: opts, DryRun: true}).Run(ctx, r)
	if err != nil || res.Pending == nil || res.Resumed != nil || res.Plan != nil {
		t.Fatalf("dry run: %+v %v, want the pending promotion only", res, err)
	}
	other := opts
	other.Patch = "patch-002"
	var pe *promote.PendingError
	if _, err := (&action.Promote{Options: other}).Run(ctx, r); !errors.As(err, &pe) {
		t.Fatalf("another patch: %v, want a *promote.PendingError", err)
	}
	res, err = (&action.Promote{Options: opts, Retry: "try again"}).Run(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if res.Resumed == nil || res.Resumed.Patch != "patch-001" || res.Plan != nil || res.Rendered == nil {
		t.Errorf("run: %+v, want patch-001 resumed and rendered, no further step", res)
	}
	ops, err := promote.NewDirOps(dir)
	if err != nil {
		t.Fatal(err)
	}
	if j, err := promote.Pending(ops); err != nil || j != nil {
		t.Errorf("journal left: %v %v", j, err)
	}
}

// A second step of a patch on top of the first, uncommitted, is refused
// as a usage error unless AllowUncommitted; a committed step is not.
func TestPromoteRefusesAStepOnAnUncommittedOne(t *testing.T) {
	r, g := newFleet(t)
	writeFile(t, r.Dir, "config/mc/podinfo/dev/us-east1/patch-001.yaml", patch)
	renderAll(t, r.Dir)
	ctx := context.Background()
	for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", "the patch"}} {
		if _, err := g.Out(ctx, args...); err != nil {
			t.Fatal(err)
		}
	}
	opts := promote.Options{ClusterType: "mc", Component: "podinfo", Patch: "patch-001"}
	res, err := (&action.Promote{Options: opts, Retry: "try again"}).Run(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if res.Plan == nil || res.Plan.Target == "" {
		t.Fatalf("first step: %+v", res)
	}
	var ue *action.UsageError
	if _, err := (&action.Promote{Options: opts, Retry: "try again"}).Run(ctx, r); !errors.As(err, &ue) {
		t.Fatalf("a step on the uncommitted one: %v, want an *action.UsageError", err)
	}
	if _, err := (&action.Promote{Options: opts, DryRun: true}).Run(ctx, r); err != nil {
		t.Fatalf("a dry run: %v", err)
	}
	res, err = (&action.Promote{Options: opts, Retry: "try again", AllowUncommitted: true, Commit: true}).Run(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if res.Commit == nil || res.Branch != "main" {
		t.Errorf("with AllowUncommitted and Commit: %+v, want a commit on main", res)
	}
}
