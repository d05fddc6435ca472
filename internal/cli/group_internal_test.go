package cli

import (
	"slices"
	"testing"

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

// TestPinMessageListsAsTheTerminal checks that a pin's commit message
// (pin.Message, through pin.ShortList) cuts a list of targets as the
// terminal does, without the hint at -v.
func TestPinMessageListsAsTheTerminal(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e", "f"}
	for n := 1; n <= len(names); n++ {
		if got, want := shortList(names[:n]), pin.ShortList(names[:n]); got != want {
			t.Errorf("%d names: the terminal cuts them to %q, a pin's commit message to %q", n, got, want)
		}
	}
	if pin.Shown != shownNames {
		t.Errorf("pin.Shown is %d, the terminal shows %d names", pin.Shown, shownNames)
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
