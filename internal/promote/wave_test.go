package promote

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// wavesConfig has two integration regions, then six production regions
// behind a manual gate, entered in waves of 1, 2, 25% (2 of 6, rounded up)
// and the rest; region r5 is a gate of its own.
const wavesConfig = `dimensions: [environments, regions]
promotion: {level: regions}
sequence:
  environments:
    - name: integration
      regions: [a, b]
    - name: production
      promotion: manual
      rollout: {waves: [1, 2, 25%, 100%]}
      regions:
        - r1
        - r2
        - r3
        - r4
        - {name: r5, promotion: manual}
        - r6
cluster_types: [{name: management-cluster}]
`

// TestWavesSequence promotes a patch from integration through
// production's waves to the fold, applying each plan: each step enters
// its wave's nodes at once, a gate inside a wave is the wave's, and the
// last wave coalesces and folds as a step of one node does.
func TestWavesSequence(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, wavesConfig, patchesAt("integration"))
	steps := []struct {
		target  string
		gates   []string
		wave    *Wave
		subject string
		want    []string // locations afterwards; nil: folded
		next    string
	}{
		{target: "production/r1", gates: []string{"production"},
			wave:    &Wave{Group: "production", Number: 1, Of: 4, Nodes: []string{"production/r1"}, Entered: 1, Total: 6},
			subject: "Promote patch-001 of management-cluster/test-app to production/r1 (wave 1 of 4 of production)",
			want:    []string{"integration", "production/r1"}, next: "production/r2"},
		{target: "production/r2",
			wave:    &Wave{Group: "production", Number: 2, Of: 4, Nodes: []string{"production/r2", "production/r3"}, Entered: 3, Total: 6},
			subject: "Promote patch-001 of management-cluster/test-app to production/r2, production/r3 (wave 2 of 4 of production)",
			want:    []string{"integration", "production/r1", "production/r2", "production/r3"}, next: "production/r4"},
		{target: "production/r4", gates: []string{"production/r5"},
			wave: &Wave{Group: "production", Number: 3, Of: 4, Nodes: []string{"production/r4", "production/r5"}, Entered: 5, Total: 6},
			want: []string{"integration", "production/r1", "production/r2", "production/r3", "production/r4", "production/r5"}, next: "production/r6"},
		{target: "production/r6",
			wave:    &Wave{Group: "production", Number: 4, Of: 4, Nodes: []string{"production/r6"}, Entered: 6, Total: 6},
			subject: "Promote patch-001 of management-cluster/test-app to production/r6 (wave 4 of 4 of production), coalesce it at production, fold it into config/management-cluster/test-app/values.yaml"},
	}
	for i, st := range steps {
		f := loadDir(t, dir)
		if len(st.gates) > 0 {
			var gate *GateError
			if _, err := prepare(t, f, Options{}); !errors.As(err, &gate) || !cmp.Equal(gate.Gates, st.gates) {
				t.Fatalf("step %d without approval: %v, want the gates %v", i+1, err, st.gates)
			}
		}
		p := mustPrepare(t, f, Options{Approve: true})
		if p.Target != st.target || p.Next != st.next {
			t.Errorf("step %d: target %s, next %s; want %s, %s", i+1, p.Target, p.Next, st.target, st.next)
		}
		if d := cmp.Diff(st.gates, p.Gates); d != "" {
			t.Errorf("step %d: gates (-want +got):\n%s", i+1, d)
		}
		for _, n := range st.wave.Nodes {
			st.wave.Files = append(st.wave.Files, patchFile(n, "patch-001"))
		}
		if d := cmp.Diff(st.wave, p.Wave); d != "" {
			t.Errorf("step %d: wave (-want +got):\n%s", i+1, d)
		}
		if st.subject != "" && Subject(p) != st.subject {
			t.Errorf("step %d: subject\n  got  %s\n  want %s", i+1, Subject(p), st.subject)
		}
		if st.want != nil {
			// Every node of the wave, and only those, re-renders.
			if reach, _ := p.Reach(); !cmp.Equal(st.wave.Nodes, reach) {
				d := cmp.Diff(st.wave.Nodes, reach)
				t.Errorf("step %d: reach (-want +got):\n%s", i+1, d)
			}
		}
		if err := applyAll(testOps(dir), p); err != nil {
			t.Fatalf("step %d: Apply: %v", i+1, err)
		}
		if d := cmp.Diff(st.want, locations(readTree(t, dir), "patch-001")); d != "" {
			t.Errorf("step %d: locations (-want +got):\n%s", i+1, d)
		}
	}
}

// TestWaveSizing checks which nodes the next step enters from where the
// patch is, as counts and percentages size the waves.
func TestWaveSizing(t *testing.T) {
	tests := []struct {
		name  string
		waves string
		at    []string
		want  []string
		num   int
		until string
	}{
		{"the first wave", "[2, 100%]", []string{"integration"}, []string{"r1", "r2"}, 1, ""},
		{"the last wave takes the rest", "[2, 100%]", []string{"integration", "production/r1", "production/r2"},
			[]string{"r3", "r4", "r5", "r6"}, 2, ""},
		{"a percentage rounds up", "[10%, 100%]", []string{"integration"}, []string{"r1"}, 1, ""},
		{"percentages are of the whole group", "[50%, 100%]", []string{"integration", "production/r1", "production/r2", "production/r3"},
			[]string{"r4", "r5", "r6"}, 2, ""},
		{"a wave begun by hand is completed", "[1, 3, 100%]", []string{"integration", "production/r1", "production/r2"},
			[]string{"r3", "r4"}, 2, ""},
		{"a count beyond the group is the whole group", "[40, 100%]", []string{"integration"},
			[]string{"r1", "r2", "r3", "r4", "r5", "r6"}, 1, ""},
		{"a wave that enters --until stops there", "[1, 3, 100%]", []string{"integration", "production/r1"},
			[]string{"r2"}, 2, "production/r2"},
		{"a wave before --until is whole", "[1, 3, 100%]", []string{"integration", "production/r1"},
			[]string{"r2", "r3", "r4"}, 2, "integration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			config := strings.Replace(wavesConfig, "[1, 2, 25%, 100%]", tt.waves, 1)
			p := mustPrepare(t, newFleet(t, config, patchesAt(tt.at...)), Options{Approve: true, Until: tt.until})
			var want []string
			for _, r := range tt.want {
				want = append(want, "production/"+r)
			}
			if p.Wave == nil {
				t.Fatalf("no wave; target %s", p.Target)
			}
			if d := cmp.Diff(want, p.Wave.Nodes); d != "" || p.Wave.Number != tt.num {
				t.Errorf("wave %d, want %d; nodes (-want +got):\n%s", p.Wave.Number, tt.num, d)
			}
		})
	}
}

// TestWavesOffAndInherited checks that waves apply only under the node
// that sets them (integration has none: one region a step), that the
// top-level setting applies to each environment on its own, and that
// "waves: []" turns an ancestor's off.
func TestWavesOffAndInherited(t *testing.T) {
	p := mustPrepare(t, newFleet(t, wavesConfig, patchesAt("integration/a")), Options{})
	if p.Wave != nil || p.Target != "integration/b" {
		t.Errorf("no waves in integration: target %s, wave %+v", p.Target, p.Wave)
	}

	top := strings.Replace(wavesConfig, "promotion: {level: regions}\n", "promotion: {level: regions}\nrollout: {waves: [1, 100%]}\n", 1)
	top = strings.Replace(top, "rollout: {waves: [1, 2, 25%, 100%]}", "rollout: {soak: 1m}", 1)
	p = mustPrepare(t, newFleet(t, top, patchesAt("integration/a")), Options{})
	if p.Wave == nil || p.Wave.Group != "integration" || !cmp.Equal(p.Wave.Nodes, []string{"integration/b"}) {
		t.Errorf("top-level waves in integration: %+v, want the rest of integration, and no more", p.Wave)
	}
	p = mustPrepare(t, newFleet(t, top, patchesAt("integration")), Options{Approve: true})
	if p.Wave == nil || p.Wave.Group != "production" || !cmp.Equal(p.Wave.Nodes, []string{"production/r1"}) {
		t.Errorf("top-level waves in production: %+v, want production's first wave", p.Wave)
	}

	off := strings.Replace(top, "rollout: {soak: 1m}", "rollout: {waves: []}", 1)
	p = mustPrepare(t, newFleet(t, off, patchesAt("integration", "production/r1")), Options{Approve: true})
	if p.Wave != nil || p.Target != "production/r2" {
		t.Errorf("waves: [] in production: target %s, wave %+v; want one region", p.Target, p.Wave)
	}
}

func TestWaveOf(t *testing.T) {
	tests := []struct {
		at   []string
		want *Wave // Nodes and Files left out
	}{
		{[]string{"integration/a"}, nil},
		{[]string{"integration", "production/r1"}, &Wave{Group: "production", Number: 1, Of: 4, Entered: 1, Total: 6}},
		{[]string{"integration", "production/r1", "production/r2"}, &Wave{Group: "production", Number: 2, Of: 4, Entered: 2, Total: 6}},
		{[]string{"integration", "production/r1", "production/r2", "production/r3"}, &Wave{Group: "production", Number: 2, Of: 4, Entered: 3, Total: 6}},
	}
	for _, tt := range tests {
		got, err := WaveOf(newFleet(t, wavesConfig, patchesAt(tt.at...)), Options{ClusterType: ct, Component: app, Patch: "patch-001"})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("at %v (-want +got):\n%s", tt.at, d)
		}
	}
}
