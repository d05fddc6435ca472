package pin

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMessage checks a pin's commit message: a group of many targets cut
// to the first few, a group of few listed a line each, a full hash
// abbreviated, an Approved-by trailer per gate.
func TestMessage(t *testing.T) {
	var changes []Change
	for _, r := range []string{"r1", "r2", "r3", "r4", "r5"} {
		changes = append(changes, Change{ClusterType: "mc", Target: "prod/" + r, From: "main", To: "v2"})
	}
	changes = append(changes, Change{ClusterType: "edge", Target: "prod/r1", From: "826fa76d08fc2ce87c863196e52d5a4fa9259a82", To: "v2"})
	got := Message(&Plan{Node: "prod", Revision: "v2", Changes: changes, Gates: []string{"prod"}}, "Jane <jane@example.com>")
	want := `Pin prod to v2

mc, 5 targets: main -> v2 (prod/r1, prod/r2, prod/r3 and 2 more)
edge prod/r1: 826fa76d08fc -> v2

Approved-by: Jane <jane@example.com> for prod
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Message (-want +got):\n%s", diff)
	}
}

func TestShortList(t *testing.T) {
	five := []string{"a", "b", "c", "d", "e"}
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{five[:1], "a"},
		{five[:4], "a, b, c, d"},
		{five, "a, b, c and 2 more"},
	} {
		if got := ShortList(tc.names); got != tc.want {
			t.Errorf("ShortList(%q) = %q, want %q", tc.names, got, tc.want)
		}
	}
}
