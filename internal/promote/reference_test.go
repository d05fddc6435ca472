package promote

// The reference's tests (patjlm/gcp-hcp-apps, branch generator,
// hack/test_promote.py), each ported as Go tests over in-memory fleets. Each
// test names the reference test it ports. The reference calls its steps one
// by one (find_patches, detect_gaps, get_next_location, promote,
// coalesce_patches); strata's Prepare is its main(): find, refuse gaps,
// copy, then coalesce and integrate, all in one plan. Where a reference test
// exercises coalesce_patches alone on a state no promotion leads to, the
// port calls the planner's coalesce step alone.

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/fleet"
)

// test_walk_function: walk order is pre-order, every depth included.
func TestWalkIsPreOrder(t *testing.T) {
	f := newFleet(t, toyConfig, nil)
	var got []string
	f.Config.Root.Walk(func(n *fleet.Node) { got = append(got, n.ID()) })
	want := []string{
		"env1",
		"env1/sector1",
		"env1/sector1/region1",
		"env1/sector1/region2",
		"env1/sector2",
		"env1/sector2/region1",
		"env2",
		"env2/sector1",
		"env2/sector1/region1",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("walk order (-want +got):\n%s", diff)
	}
}

// test_gap_detection_* and test_real_config_gap_detection_*: a patch whose
// latest location skipped a target is refused with the reference's message,
// naming the latest location and the first target it skipped.
func TestGapDetection(t *testing.T) {
	tests := []struct {
		name      string // the reference test
		config    string
		locations []string
		want      string // "" for no gap
	}{
		{"test_gap_detection_no_gaps", toyConfig, []string{"env1/sector1/region1"}, ""},
		{"test_gap_detection_region_gap", toyConfig, []string{"env1/sector1/region2"},
			"Gap detected: patch exists at env1/sector1/region2 but missing from env1/sector1/region1"},
		// The reference asserts the message contains "env1/sector1": the
		// first target missing is env1/sector1/region1.
		{"test_gap_detection_sector_gap", toyConfig, []string{"env1/sector2"},
			"Gap detected: patch exists at env1/sector2 but missing from env1/sector1/region1"},
		{"test_gap_detection_environment_gap", toyConfig, []string{"env2/sector1"},
			"Gap detected: patch exists at env2/sector1 but missing from env1/sector1/region1"},
		{"test_real_config_gap_detection_region_gap", realConfig, []string{"integration/int-sector-1/europe-west1"},
			"Gap detected: patch exists at integration/int-sector-1/europe-west1 but missing from integration/int-sector-1/us-central1"},
		{"test_real_config_gap_detection_sector_gap", realConfig, []string{"integration/int-sector-2"},
			"Gap detected: patch exists at integration/int-sector-2 but missing from integration/int-sector-1/us-central1"},
		{"test_real_config_gap_detection_environment_gap", realConfig, []string{"stage"},
			"Gap detected: patch exists at stage but missing from integration/int-sector-1/us-central1"},
		// Beyond the reference's tests: a gap inside a sector whose other
		// regions come later.
		{"gap behind copies at several levels", realConfig, []string{"integration/int-sector-1/europe-west1", "integration/int-sector-2"},
			"Gap detected: patch exists at integration/int-sector-2 but missing from integration/int-sector-1/us-central1"},
		{"no gap when an ancestor covers the skipped targets", realConfig, []string{"integration", "stage/stage-sector-1"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFleet(t, tt.config, patchesAt(tt.locations...))
			_, err := prepare(t, f, Options{})
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Prepare: %v, want no gap", err)
			case tt.want != "" && err == nil:
				t.Fatalf("Prepare succeeded, want %q", tt.want)
			case tt.want != "" && err.Error() != tt.want:
				t.Fatalf("Prepare error:\n  got  %s\n  want %s", err, tt.want)
			}
		})
	}
}

// step is what a plan does, in short.
type step struct {
	Target     string
	Coalesced  []string // the nodes copies were coalesced into
	Integrated bool
	Next       string
	Ops        []string
}

func summary(p *Plan) step {
	s := step{Target: p.Target, Integrated: p.Integrated != "", Next: p.Next, Ops: opList(p)}
	for _, c := range p.Coalesced {
		s.Coalesced = append(s.Coalesced, c.Node)
	}
	return s
}

func w(location string) string  { return "write " + patchFile(location, "patch-001") }
func rm(location string) string { return "remove " + patchFile(location, "patch-001") }

// test_valid_*_promotion, test_end_of_sequence, test_complete_promotion_flow:
// the next location is the next node in walk order, at the promotion level
// (sectors by default) or below, that the patch does not cover yet.
//
// The reference tests call get_next_location alone; Prepare also coalesces
// in the same promotion, as the reference's main() does right after the
// copy, so each case also says what is coalesced.
func TestNextLocation(t *testing.T) {
	tests := []struct {
		name      string
		locations []string
		want      step
	}{
		{"test_valid_region_to_region_promotion", []string{"integration/int-sector-1/us-central1"}, step{
			Target: "integration/int-sector-1/europe-west1",
			// The copy completes int-sector-1 (two regions): coalesced at once.
			Coalesced: []string{"integration/int-sector-1"},
			Next:      "integration/int-sector-2",
			Ops:       []string{w("integration/int-sector-1"), rm("integration/int-sector-1/us-central1")},
		}},
		{"test_valid_region_to_sector_promotion", []string{"integration/int-sector-1/us-central1", "integration/int-sector-1/europe-west1"}, step{
			Target:    "integration/int-sector-2",
			Coalesced: []string{"integration"},
			Next:      "stage/stage-sector-1",
			Ops: []string{w("integration"), rm("integration/int-sector-1/us-central1"),
				rm("integration/int-sector-1/europe-west1")},
		}},
		{"test_valid_sector_to_sector_promotion", []string{"integration/int-sector-1"}, step{
			Target:    "integration/int-sector-2",
			Coalesced: []string{"integration"},
			Next:      "stage/stage-sector-1",
			Ops:       []string{w("integration"), rm("integration/int-sector-1")},
		}},
		{"test_valid_environment_to_environment_promotion", []string{"integration"}, step{
			// Not stage itself: environments are above the default level.
			Target: "stage/stage-sector-1",
			Next:   "stage/stage-sector-2",
			Ops:    []string{w("stage/stage-sector-1")},
		}},
		{"test_end_of_sequence", []string{"integration", "stage/stage-sector-1", "stage/stage-sector-2", "production/prod-canary",
			"production/prod-sector-1/us-east1", "production/prod-sector-1/europe-east1"}, step{
			// No next location; the reference's main() then coalesces
			// and integrates, and so does Prepare.
			Coalesced:  []string{"stage", "production"},
			Integrated: true,
			Ops: []string{"write " + valuesPath, "write " + historyPath, rm("integration"), rm("stage/stage-sector-1"), rm("stage/stage-sector-2"),
				rm("production/prod-canary"), rm("production/prod-sector-1/us-east1"), rm("production/prod-sector-1/europe-east1")},
		}},
		// test_complete_promotion_flow: the reference adds each next
		// location by hand, without coalescing, and asks for the next one.
		{"test_complete_promotion_flow step 1", []string{"integration/int-sector-1/us-central1"}, step{
			Target:    "integration/int-sector-1/europe-west1",
			Coalesced: []string{"integration/int-sector-1"},
			Next:      "integration/int-sector-2",
			Ops:       []string{w("integration/int-sector-1"), rm("integration/int-sector-1/us-central1")},
		}},
		{"test_complete_promotion_flow step 2", []string{"integration/int-sector-1/us-central1", "integration/int-sector-1/europe-west1"}, step{
			Target:    "integration/int-sector-2",
			Coalesced: []string{"integration"},
			Next:      "stage/stage-sector-1",
			Ops: []string{w("integration"), rm("integration/int-sector-1/us-central1"),
				rm("integration/int-sector-1/europe-west1")},
		}},
		{"test_complete_promotion_flow step 3", []string{"integration/int-sector-1/us-central1", "integration/int-sector-1/europe-west1",
			"integration/int-sector-2"}, step{
			Target:    "stage/stage-sector-1",
			Coalesced: []string{"integration"},
			Next:      "stage/stage-sector-2",
			Ops: []string{w("integration"), w("stage/stage-sector-1"), rm("integration/int-sector-1/us-central1"),
				rm("integration/int-sector-1/europe-west1"), rm("integration/int-sector-2")},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFleet(t, realConfig, patchesAt(tt.locations...))
			p := mustPrepare(t, f, Options{})
			if diff := cmp.Diff(tt.want, summary(p)); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
			var found []string
			for _, l := range tt.locations {
				found = append(found, patchFile(l, "patch-001"))
			}
			if diff := cmp.Diff(found, p.Found); diff != "" {
				t.Errorf("found (-want +got):\n%s", diff)
			}
			if tt.want.Target != "" && p.TargetFile != patchFile(tt.want.Target, "patch-001") {
				t.Errorf("target file %s, want %s", p.TargetFile, patchFile(tt.want.Target, "patch-001"))
			}
		})
	}
}

// test_promote_function: promotion copies the patch, byte for byte, and
// leaves the original in place.
//
// In the reference's config the copy to europe-west1 completes int-sector-1,
// which its main() then coalesces (so does Prepare: TestNextLocation); with
// a third region the copy alone is visible.
func TestPromotionCopiesThePatch(t *testing.T) {
	cfg := strings.Replace(realConfig, "regions: [{name: us-central1}, {name: europe-west1}]",
		"regions: [{name: us-central1}, {name: europe-west1}, {name: asia-east1}]", 1)
	content := "# keep me\nmetadata:\n  description: first region\n" + testPatch
	f := newFleet(t, cfg, map[string]string{patchFile("integration/int-sector-1/us-central1", "patch-001"): content})
	p := mustPrepare(t, f, Options{})
	want := step{Target: "integration/int-sector-1/europe-west1", Next: "integration/int-sector-1/asia-east1",
		Ops: []string{w("integration/int-sector-1/europe-west1")}}
	if diff := cmp.Diff(want, summary(p)); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	if string(p.Ops[0].Data) != content {
		t.Errorf("copy holds\n%s\nwant the original's bytes\n%s", p.Ops[0].Data, content)
	}
}

// test_no_patches_found: no copy of the patch anywhere is an error that
// lists the component's patches (or says it has none).
func TestNoPatchFound(t *testing.T) {
	f := newFleet(t, realConfig, nil)
	_, err := prepare(t, f, Options{})
	want := `unknown patch "patch-001" of management-cluster/test-app: it has no patches (start one: strata patch new management-cluster test-app --at integration)`
	if err == nil || err.Error() != want {
		t.Fatalf("Prepare error:\n  got  %v\n  want %s", err, want)
	}

	f = newFleet(t, realConfig, with(patchesAt("integration"), map[string]string{patchFile("stage", "patch-007"): testPatch}))
	_, err = prepare(t, f, Options{Patch: "patch-002"})
	want = `unknown patch "patch-002" of management-cluster/test-app (one of: patch-001, patch-007)`
	if err == nil || err.Error() != want {
		t.Fatalf("Prepare error:\n  got  %v\n  want %s", err, want)
	}
}

// test_is_patched_function: a node is covered by a copy at the node or at
// an ancestor, never by one at a descendant or a sibling.
func TestCovers(t *testing.T) {
	f := newFleet(t, realConfig, nil)
	node := func(id string) *fleet.Node {
		n := f.Config.Find(strings.Split(id, "/"))
		if n == nil {
			t.Fatalf("no node %s", id)
		}
		return n
	}
	tests := []struct {
		name    string
		node    string
		patched []string
		want    bool
	}{
		{"exact match", "integration/int-sector-1", []string{"integration/int-sector-1"}, true},
		{"ancestor covers", "integration/int-sector-1/us-central1", []string{"integration/int-sector-1"}, true},
		{"different branches", "integration/int-sector-1", []string{"integration/int-sector-2"}, false},
		{"nothing patched", "integration/int-sector-1", nil, false},
		{"one of several", "integration/int-sector-1/us-central1", []string{"stage", "integration/int-sector-1"}, true},
		{"descendant does not cover", "integration", []string{"integration/int-sector-1/us-central1"}, false},
		{"root level", "integration", []string{"integration"}, true},
		{"sibling with a common prefix", "integration/int-sector-1", []string{"integration/int-sector-10"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := state{}
			for _, id := range tt.patched {
				s[id] = []byte(testPatch)
			}
			if got := s.covers(node(tt.node)); got != tt.want {
				t.Errorf("covers(%s) with %v = %v, want %v", tt.node, tt.patched, got, tt.want)
			}
		})
	}
}

// The requirements document's scenarios 1-6 (docs/patch-promotion-
// requirements.md) on the toy config, promoting step by step from the first
// region with Apply: each step's locations.
func TestRequirementsScenarios(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, toyConfig, patchesAt("env1/sector1/region1"))
	steps := []struct {
		scenario string
		want     []string
	}{
		{"1: region to region (sector1 complete: coalesced)", []string{"env1/sector1"}},
		{"3: sector to sector (env1 complete: coalesced)", []string{"env1"}},
		{"5: environment to the next environment's first sector (env2 complete: integrated)", nil},
	}
	for _, st := range steps {
		p := mustPrepare(t, loadDir(t, dir), Options{})
		if err := applyAll(testOps(dir), p); err != nil {
			t.Fatalf("scenario %s: %v", st.scenario, err)
		}
		if diff := cmp.Diff(st.want, locations(readTree(t, dir), "patch-001")); diff != "" {
			t.Errorf("scenario %s: locations (-want +got):\n%s", st.scenario, diff)
		}
	}
	_, err := prepare(t, loadDir(t, dir), Options{})
	if err == nil || !strings.Contains(err.Error(), `unknown patch "patch-001" of management-cluster/test-app: it was folded into values.yaml at `) {
		t.Fatalf("promoting an integrated patch: %v, want unknown: folded", err)
	}
	if errors.Is(err, ErrNothingToDo) {
		t.Errorf("an integrated patch is gone, not at the end of the sequence: %v", err)
	}
	if got := readTree(t, dir)[valuesPath]; !strings.Contains(got, `targetRevision: "2.0.0"`) {
		t.Errorf("values.yaml after integration:\n%s", got)
	}
	if slices.ContainsFunc(mapsKeys(readTree(t, dir)), func(p string) bool { return strings.HasPrefix(p, appDir+"/env") }) {
		t.Errorf("level directories left behind: %v", mapsKeys(readTree(t, dir)))
	}
}

func mapsKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
