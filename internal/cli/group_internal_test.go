package cli

import (
	"slices"
	"testing"
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

func TestGroupKeepsFirstOrder(t *testing.T) {
	var g group[string]
	for _, kv := range [][2]string{{"y", "1"}, {"x", "2"}, {"y", "3"}} {
		g.add(kv[0], kv[1])
	}
	if !slices.Equal(g.keys, []string{"y", "x"}) || !slices.Equal(g.names["y"], []string{"1", "3"}) {
		t.Errorf("keys %q, names %q", g.keys, g.names)
	}
}
