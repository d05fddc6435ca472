package status_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/status"
	"github.com/strata-fleet/strata/internal/testing/testgit"
)

// TestReadUnhealthy reads the Strata-Unhealthy trailers of a real
// repository's rollout commits: each patch gets its own, newest first, and
// none from before a fold of a patch of the same name.
func TestReadUnhealthy(t *testing.T) {
	dir := t.TempDir()
	g := git.Exec{Dir: dir, Env: testgit.Env}
	ctx := context.Background()
	commit := func(msg string) {
		t.Helper()
		if _, err := g.Run(ctx, "commit", "-q", "--allow-empty", "-m", msg); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := g.Run(ctx, "init", "-q", "-b", "main"); err != nil {
		t.Fatal(err)
	}
	commit("Promote patch-001 of workload/demo to b, fold it into values.yaml: 1 of 2 targets' rendered output changed\n\n" +
		"Strata-Rollout: workload/demo/patch-001\nStrata-Unhealthy: cluster old (a): an earlier patch-001")
	commit("Start patch-001 of workload/demo at a: 1 of 2 targets' rendered output changed\n\nStrata-Rollout: workload/demo/patch-001")
	commit("Promote patch-001 of workload/demo to b: 1 of 2 targets' rendered output changed\n\n" +
		"Strata-Rollout: workload/demo/patch-001\nStrata-Unhealthy: cluster w2 (integration/eu-west1) of the step to integration (0123456789ab): degraded")
	commit("Promote patch-002 of workload/demo to b: 1 of 2 targets' rendered output changed\n\n" +
		"Strata-Rollout: workload/demo/patch-002\nStrata-Unhealthy: cluster w3 (b): failed")
	commit("docs: Strata-Unhealthy: not a trailer")

	s := &status.Status{ClusterTypes: []status.ClusterType{{Name: "workload", Patches: []status.Patch{
		{Component: "demo", Name: "patch-001"}, {Component: "demo", Name: "patch-002"}, {Component: "demo", Name: "patch-003"}}}}}
	if err := status.ReadUnhealthy(ctx, g, s); err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for _, p := range s.ClusterTypes[0].Patches {
		got = append(got, p.Unhealthy)
	}
	want := [][]string{
		{"cluster w2 (integration/eu-west1) of the step to integration (0123456789ab): degraded"},
		{"cluster w3 (b): failed"},
		nil,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
