package promote

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/values"
)

// seedPatch is the change rolled out in the seed 003 sequence.
const seedPatch = `metadata:
  description: "test-app 2.0.0"
  owner: platform@example.com

applications:
  test-app:
    source:
      targetRevision: "2.0.0"  # was 1.0.0
`

// seedSteps are the locations of a patch started at the first region of
// seed 003's sequence after each promotion at the default level (sectors):
// exactly those of the reference's promote.py, run step by step on the
// reference repository's own config (branch generator). The gates are
// seed 003's: stage and production are manual, and so is
// production/prod-sector-1.
var seedSteps = []struct {
	target    string
	gates     []string // the manual gates the step enters
	coalesced []string
	want      []string // locations afterwards, in path order; nil: integrated
}{
	{target: "integration/int-sector-1/europe-west1", coalesced: []string{"integration/int-sector-1"},
		want: []string{"integration/int-sector-1"}},
	{target: "integration/int-sector-2", coalesced: []string{"integration"},
		want: []string{"integration"}},
	{target: "stage/stage-sector-1", gates: []string{"stage"},
		want: []string{"integration", "stage/stage-sector-1"}},
	{target: "stage/stage-sector-2", coalesced: []string{"stage"},
		want: []string{"integration", "stage"}},
	{target: "production/prod-canary", gates: []string{"production"},
		want: []string{"integration", "production/prod-canary", "stage"}},
	{target: "production/prod-sector-1", gates: []string{"production/prod-sector-1"}, coalesced: []string{"production"},
		want: nil},
}

// TestSeed003Sequence promotes a patch from
// integration/int-sector-1/us-central1 to the end of seed 003's sequence,
// applying each plan to a directory: the locations after each step are the
// reference's, each manual gate is refused without approval, the last step
// folds the patch into values.yaml and leaves no patch file, and one more
// promotion fails clearly.
func TestSeed003Sequence(t *testing.T) {
	dir := t.TempDir()
	other := patchFile("integration/int-sector-1/us-central1", "patch-002")
	otherText := "applications:\n  test-app:\n    syncPolicy:\n      automated: {prune: true}\n"
	writeTree(t, dir, seedConfig, map[string]string{
		patchFile("integration/int-sector-1/us-central1", "patch-001"): seedPatch,
		other: otherText, // another rollout, which must stay where it is
	})
	for i, st := range seedSteps {
		f := loadDir(t, dir)
		if len(st.gates) > 0 {
			_, err := prepare(t, f, Options{})
			var gate *GateError
			if !errors.As(err, &gate) {
				t.Fatalf("step %d: Prepare without --approve: %v, want a gate error", i+1, err)
			}
			if diff := cmp.Diff(st.gates, gate.Gates); diff != "" {
				t.Errorf("step %d: gates (-want +got):\n%s", i+1, diff)
			}
			want := "promotion enters the manual gate \"" + strings.Join(st.gates, "\", \"") +
				"\"; approve it with: strata promote management-cluster test-app patch-001 --approve"
			if err.Error() != want {
				t.Errorf("step %d: gate error:\n  got  %s\n  want %s", i+1, err, want)
			}
		}
		p := mustPrepare(t, f, Options{Approve: len(st.gates) > 0})
		if p.Target != st.target {
			t.Errorf("step %d: target %s, want %s", i+1, p.Target, st.target)
		}
		if diff := cmp.Diff(st.gates, p.Gates); diff != "" {
			t.Errorf("step %d: gates passed (-want +got):\n%s", i+1, diff)
		}
		var coalesced []string
		for _, c := range p.Coalesced {
			coalesced = append(coalesced, c.Node)
		}
		if diff := cmp.Diff(st.coalesced, coalesced); diff != "" {
			t.Errorf("step %d: coalesced (-want +got):\n%s", i+1, diff)
		}
		if err := applyAll(testOps(dir), p); err != nil {
			t.Fatalf("step %d: Apply: %v", i+1, err)
		}
		tree := readTree(t, dir)
		if diff := cmp.Diff(st.want, locations(tree, "patch-001")); diff != "" {
			t.Errorf("step %d: locations (-want +got):\n%s", i+1, diff)
		}
		for _, loc := range st.want {
			if got := tree[patchFile(loc, "patch-001")]; got != seedPatch {
				t.Errorf("step %d: %s holds\n%s\nwant the patch's bytes", i+1, loc, got)
			}
		}
		if tree[other] != otherText {
			t.Errorf("step %d: patch-002 was touched: %q", i+1, tree[other])
		}
		if j, err := Pending(testOps(dir)); j != nil || err != nil {
			t.Errorf("step %d: the journal is left behind: %v, %v", i+1, j, err)
		}
		wantIntegrated := st.want == nil
		if got := p.Integrated != ""; got != wantIntegrated {
			t.Errorf("step %d: integrated %v, want %v", i+1, got, wantIntegrated)
		}
	}

	// Folded into values.yaml: comments, quoting and the rest of the file
	// kept; the patch's metadata left out; no patch-001 file anywhere.
	tree := readTree(t, dir)
	wantValues := strings.Replace(valuesYAML, `targetRevision: "1.0.0"`, `targetRevision: "2.0.0"`, 1)
	if diff := cmp.Diff(wantValues, tree[valuesPath]); diff != "" {
		t.Errorf("values.yaml (-want +got):\n%s", diff)
	}
	for p := range tree {
		if strings.HasSuffix(p, "/patch-001.yaml") {
			t.Errorf("patch file left after integration: %s", p)
		}
	}
	// Every target sees the change, and still the other rollout where it is.
	f := loadDir(t, dir)
	ctype := f.ClusterType(ct)
	for _, n := range f.Targets {
		v, err := ctype.ComponentValues(ctype.Component(app), n)
		if err != nil {
			t.Fatal(err)
		}
		if got := v.Lookup("applications", "test-app", "source", "targetRevision"); got == nil || got.Text != "2.0.0" {
			t.Errorf("%s: targetRevision %v, want 2.0.0", n.ID(), got)
		}
		hasOther := v.Lookup("applications", "test-app", "syncPolicy") != nil
		if want := n.ID() == "integration/int-sector-1/us-central1"; hasOther != want {
			t.Errorf("%s: patch-002 in effect %v, want %v", n.ID(), hasOther, want)
		}
	}

	// One more promotion: the patch is gone, and the error says when it
	// was folded and lists the patches there are.
	_, err := prepare(t, f, Options{Approve: true})
	want := regexp.MustCompile(`^unknown patch "patch-001" of management-cluster/test-app: it was folded into values.yaml at \S+Z, as config/management-cluster/test-app/history.yaml records \(one of: patch-002\)$`)
	if err == nil || !want.MatchString(err.Error()) {
		t.Fatalf("promoting after integration:\n  got  %v\n  want %s", err, want)
	}
}

// TestSeed003SequenceIntegratesAsTheReferenceMerges checks the folded
// values.yaml against the reference's merge (deep merge of the patch
// without metadata) compared as data.
func TestSeed003SequenceIntegratesAsTheReferenceMerges(t *testing.T) {
	f := newFleet(t, seedConfig, map[string]string{
		patchFile("integration", "patch-001"): seedPatch,
		patchFile("stage", "patch-001"):       seedPatch,
		patchFile("production", "patch-001"):  seedPatch,
	})
	p := mustPrepare(t, f, Options{})
	got, err := values.Decode(valuesPath, p.Ops[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"applications": map[string]any{"test-app": map[string]any{"source": map[string]any{
		"repoURL": "https://charts.example.com", "chart": "test-app", "targetRevision": "2.0.0"}}}}
	if diff := cmp.Diff(want, got.Interface()); diff != "" {
		t.Errorf("values.yaml as data (-want +got):\n%s", diff)
	}
}
