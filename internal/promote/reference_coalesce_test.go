package promote

// The reference's coalescing and integration tests (hack/test_promote.py,
// test_coalesce_patches_*, test_final_consolidation_*, test_merge_*); see
// reference_test.go.

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/values"
)

// coalesceOnly runs the planner's coalescing step alone on the patch's
// current locations, as the reference's tests call coalesce_patches alone.
// It returns the locations afterwards in walk order and the coalescings.
func coalesceOnly(t *testing.T, f *fleet.Fleet, patch string) ([]string, []Coalesce, state, error) {
	t.Helper()
	pl, err := newPlanner(f, Options{ClusterType: ct, Component: app, Patch: patch})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := pl.find()
	out, conflicts, err := pl.coalesce(s)
	if err == nil && len(conflicts) > 0 {
		err = foldConflicts(patch, conflicts)
	}
	var after []string
	for _, n := range pl.walk {
		if _, ok := s[n.ID()]; ok {
			after = append(after, n.ID())
		}
	}
	return after, out, s, err
}

// test_coalesce_patches_*: once every target under a node has the patch,
// its copies under the node become one copy at the node, from the first
// dimension down; nothing is coalesced while a target is missing or when a
// copy above already covers the node.
func TestCoalesce(t *testing.T) {
	tests := []struct {
		name      string
		locations []string
		patch     string
		want      []string   // locations afterwards
		coalesced []Coalesce // what was merged
	}{
		{name: "test_coalesce_patches_region_to_sector",
			locations: []string{"integration/int-sector-1/us-central1", "integration/int-sector-1/europe-west1"},
			want:      []string{"integration/int-sector-1"},
			coalesced: []Coalesce{{Node: "integration/int-sector-1", Into: patchFile("integration/int-sector-1", "patch-001"),
				From: []string{patchFile("integration/int-sector-1/us-central1", "patch-001"), patchFile("integration/int-sector-1/europe-west1", "patch-001")}}},
		},
		{name: "test_coalesce_patches_sector_to_environment",
			locations: []string{"integration/int-sector-1", "integration/int-sector-2"},
			want:      []string{"integration"},
			coalesced: []Coalesce{{Node: "integration", Into: patchFile("integration", "patch-001"),
				From: []string{patchFile("integration/int-sector-1", "patch-001"), patchFile("integration/int-sector-2", "patch-001")}}},
		},
		{name: "test_coalesce_patches_mixed_levels",
			locations: []string{"integration/int-sector-1/us-central1", "integration/int-sector-1/europe-west1", "integration/int-sector-2"},
			want:      []string{"integration"},
			coalesced: []Coalesce{{Node: "integration", Into: patchFile("integration", "patch-001"),
				From: []string{patchFile("integration/int-sector-1/us-central1", "patch-001"),
					patchFile("integration/int-sector-1/europe-west1", "patch-001"), patchFile("integration/int-sector-2", "patch-001")}}},
		},
		{name: "test_coalesce_patches_incomplete_coverage",
			locations: []string{"integration/int-sector-1/us-central1"},
			want:      []string{"integration/int-sector-1/us-central1"},
		},
		{name: "test_coalesce_patches_already_at_higher_level",
			locations: []string{"integration/int-sector-1", "integration/int-sector-1/us-central1", "integration/int-sector-1/europe-west1"},
			want:      []string{"integration/int-sector-1", "integration/int-sector-1/us-central1", "integration/int-sector-1/europe-west1"},
		},
		{name: "test_coalesce_patches_cross_environment",
			locations: []string{"integration/int-sector-1", "integration/int-sector-2", "stage/stage-sector-1", "stage/stage-sector-2"},
			want:      []string{"integration", "stage"},
			coalesced: []Coalesce{
				{Node: "integration", Into: patchFile("integration", "patch-001"),
					From: []string{patchFile("integration/int-sector-1", "patch-001"), patchFile("integration/int-sector-2", "patch-001")}},
				{Node: "stage", Into: patchFile("stage", "patch-001"),
					From: []string{patchFile("stage/stage-sector-1", "patch-001"), patchFile("stage/stage-sector-2", "patch-001")}},
			},
		},
		{name: "test_coalesce_patches_partial_cross_environment",
			locations: []string{"integration/int-sector-1", "integration/int-sector-2", "stage/stage-sector-1"},
			want:      []string{"integration", "stage/stage-sector-1"},
			coalesced: []Coalesce{{Node: "integration", Into: patchFile("integration", "patch-001"),
				From: []string{patchFile("integration/int-sector-1", "patch-001"), patchFile("integration/int-sector-2", "patch-001")}}},
		},
		{name: "test_coalesce_patches_empty_input",
			locations: []string{"integration/int-sector-1"},
			patch:     "patch-999", // the reference uses "nonexistent-patch", not a patch name for strata
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFleet(t, realConfig, patchesAt(tt.locations...))
			patch := tt.patch
			if patch == "" {
				patch = "patch-001"
			}
			after, coalesced, s, err := coalesceOnly(t, f, patch)
			if err != nil {
				t.Fatalf("coalesce: %v", err)
			}
			if diff := cmp.Diff(tt.want, after); diff != "" {
				t.Errorf("locations after coalescing (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.coalesced, coalesced); diff != "" {
				t.Errorf("coalesced (-want +got):\n%s", diff)
			}
			for id, data := range s {
				if string(data) != testPatch {
					t.Errorf("copy at %s holds %q, want the patch's bytes", id, data)
				}
			}
		})
	}
}

// test_coalesce_patches_content_preservation: the coalesced copy is the
// first copy's bytes, metadata and comments included.
//
// The reference's test gives the two regions different contents and
// asserts the first one wins; strata refuses to coalesce copies that differ
// (the second region's change would be lost silently): see
// TestRefusals. Here the copies hold the same values
// but differ in metadata and comments, which do not count.
func TestCoalescePreservesTheFirstCopy(t *testing.T) {
	first := "# region 1 first\nmetadata:\n  description: region1-specific-content\n" + testPatch
	second := "metadata:\n  description: region2-specific-content\n" + testPatch
	f := newFleet(t, realConfig, map[string]string{
		patchFile("integration/int-sector-1/us-central1", "patch-001"):  first,
		patchFile("integration/int-sector-1/europe-west1", "patch-001"): second,
	})
	_, _, s, err := coalesceOnly(t, f, "patch-001")
	if err != nil {
		t.Fatal(err)
	}
	if got := string(s["integration/int-sector-1"]); got != first {
		t.Errorf("coalesced content:\n%s\nwant the first copy's:\n%s", got, first)
	}

	// Through Prepare: a promotion from the first region copies it, then
	// coalesces; the file written is the first copy, byte for byte.
	f = newFleet(t, realConfig, map[string]string{patchFile("integration/int-sector-1/us-central1", "patch-001"): first})
	p := mustPrepare(t, f, Options{})
	if len(p.Ops) == 0 || p.Ops[0].Path != patchFile("integration/int-sector-1", "patch-001") || string(p.Ops[0].Data) != first {
		t.Fatalf("first operation %+v, want the first copy written at int-sector-1", p.Ops)
	}
}

// test_final_consolidation_to_values_yaml: once every environment has the
// patch, it is merged into values.yaml (without its metadata) and its files
// are removed. values.yaml is edited in place: its other lines, comments
// and quoting stay as they are.
//
// The reference's test leaves "test: patch" in stage and production and a
// different patch in integration, and merges integration's alone; strata
// refuses to fold copies that differ (TestRefusals),
// so all three hold the same patch here.
func TestFinalIntegrationIntoValues(t *testing.T) {
	valuesText := `
applications:
  test-app:
    existing: config
    source:
      targetRevision: "v1.0.0"
`
	patchText := `
metadata:
  description: "Test patch for consolidation"

applications:
  test-app:
    source:
      targetRevision: "v2.0.0"
    new_field: "added by patch"
`
	files := map[string]string{valuesPath: valuesText}
	for _, l := range []string{"integration", "stage", "production"} {
		files[patchFile(l, "patch-001")] = patchText
	}
	f := newFleet(t, realConfig, files)
	p := mustPrepare(t, f, Options{})
	want := step{Integrated: true, Ops: []string{"write " + valuesPath, "write " + historyPath, rm("integration"), rm("stage"), rm("production")}}
	if diff := cmp.Diff(want, summary(p)); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	if p.Integrated != valuesPath {
		t.Errorf("integrated into %q, want %q", p.Integrated, valuesPath)
	}
	got := string(p.Ops[0].Data)
	wantText := `
applications:
  test-app:
    existing: config
    source:
      targetRevision: "v2.0.0"
    new_field: "added by patch"
`
	if diff := cmp.Diff(wantText, got); diff != "" {
		t.Errorf("values.yaml (-want +got):\n%s", diff)
	}
	for _, s := range []string{"v2.0.0", "added by patch", "existing: config"} {
		if !strings.Contains(got, s) {
			t.Errorf("values.yaml lacks %q", s)
		}
	}
	for _, s := range []string{"metadata", "Test patch for consolidation"} {
		if strings.Contains(got, s) {
			t.Errorf("values.yaml holds the patch's metadata (%q)", s)
		}
	}
}

// Beyond the reference: copies left below a top-level one (as
// test_coalesce_patches_already_at_higher_level leaves them) go with the
// integration; the reference leaves them, and the next promotion would
// start the rollout again from them.
func TestIntegrationRemovesCopiesLeftBelow(t *testing.T) {
	f := newFleet(t, realConfig, patchesAt("integration", "integration/int-sector-1/us-central1", "stage", "production"))
	p := mustPrepare(t, f, Options{})
	want := step{Integrated: true, Ops: []string{"write " + valuesPath, "write " + historyPath, rm("integration"),
		rm("integration/int-sector-1/us-central1"), rm("stage"), rm("production")}}
	if diff := cmp.Diff(want, summary(p)); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
}

// test_no_final_consolidation_with_partial_coverage: while an environment
// lacks the patch, values.yaml is not touched and the copies stay.
func TestNoIntegrationWhileAnEnvironmentLacksThePatch(t *testing.T) {
	f := newFleet(t, realConfig, patchesAt("integration", "stage"))
	p := mustPrepare(t, f, Options{})
	want := step{Target: "production/prod-canary", Next: "production/prod-sector-1", Ops: []string{w("production/prod-canary")}}
	if diff := cmp.Diff(want, summary(p)); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
}

// test_merge_patch_into_values_function: the patch's content (its metadata
// stripped) is merged into values.yaml by the merge rules: maps merge,
// scalars replace, new keys are added.
func TestIntegrateMergesThePatch(t *testing.T) {
	valuesText := `
applications:
  test-app:
    existing: config
    source:
      targetRevision: "v1.0.0"
      chart: test-chart
`
	patchText := `
metadata:
  description: "Test patch"
  owner: "team@example.com"

applications:
  test-app:
    source:
      targetRevision: "v2.0.0"
    new_config:
      enabled: true
`
	out, err := integrate(fleet.NewFile(valuesPath, []byte(valuesText)), "patch-001.yaml", []byte(patchText))
	if err != nil {
		t.Fatal(err)
	}
	got, err := values.Decode(valuesPath, out)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"applications": map[string]any{"test-app": map[string]any{
		"existing":   "config",
		"source":     map[string]any{"targetRevision": "v2.0.0", "chart": "test-chart"},
		"new_config": map[string]any{"enabled": true},
	}}}
	if diff := cmp.Diff(want, got.Interface()); diff != "" {
		t.Errorf("merged values (-want +got):\n%s", diff)
	}
	if got.Get("metadata") != nil || strings.Contains(string(out), "team@example.com") {
		t.Errorf("the patch's metadata reached values.yaml:\n%s", out)
	}
	wantText := `
applications:
  test-app:
    existing: config
    source:
      targetRevision: "v2.0.0"
      chart: test-chart
    new_config:
      enabled: true
`
	if diff := cmp.Diff(wantText, string(out)); diff != "" {
		t.Errorf("values.yaml text (-want +got):\n%s", diff)
	}
}
