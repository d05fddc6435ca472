package cli

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/pin"
)

func TestNameList(t *testing.T) {
	five := []string{"a", "b", "c", "d", "e"}
	for _, tc := range []struct {
		names   []string
		verbose bool
		want    string
	}{
		{[]string{"a"}, false, "a"},
		{five[:4], false, "a, b, c, d"},
		{five, false, "a, b, c and 2 more (-v lists them)"},
		{five, true, "a, b, c, d, e"},
	} {
		if got := nameList(tc.names, tc.verbose); got != tc.want {
			t.Errorf("nameList(%q, %v) = %q, want %q", tc.names, tc.verbose, got, tc.want)
		}
	}
}

// TestPinMessageListsAsTheTerminal checks that a pin's commit message cuts
// a group's targets as the terminal does, without the hint at -v.
func TestPinMessageListsAsTheTerminal(t *testing.T) {
	var changes []pin.Change
	for _, r := range []string{"r1", "r2", "r3", "r4", "r5"} {
		changes = append(changes, pin.Change{ClusterType: "mc", Target: "prod/" + r, From: "main", To: "v2"})
	}
	changes = append(changes, pin.Change{ClusterType: "edge", Target: "prod/r1", From: "main", To: "v2"})
	got := pinMessage(&pin.Plan{Node: "prod", Revision: "v2", Changes: changes, Gates: []string{"prod"}}, "Jane <jane@example.com>")
	want := `Pin prod to v2

mc, 5 targets: main -> v2 (prod/r1, prod/r2, prod/r3 and 2 more)
edge prod/r1: main -> v2

Approved-by: Jane <jane@example.com> for prod
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pinMessage (-want +got):\n%s", diff)
	}
}

func TestGroupKeepsFirstOrder(t *testing.T) {
	var g group[string]
	for _, kv := range [][2]string{{"y", "1"}, {"x", "2"}, {"y", "3"}} {
		g.add(kv[0], kv[1])
	}
	if !slices.Equal(g.keys, []string{"y", "x"}) || !slices.Equal(g.names["y"], []string{"1", "3"}) {
		t.Errorf("keys %q, names %q", g.keys, g.names)
	}
}
