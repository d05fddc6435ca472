package rollout

import (
	"slices"
	"testing"
	"time"
)

// TestTakePutBackFirst: the steps a hold put back (it ran out of time)
// come first in the next hold, before steps asked for since, even of
// patches earlier in the order; those come in patch order. Patch order
// alone would leave a late patch waiting while earlier ones keep asking.
func TestTakePutBackFirst(t *testing.T) {
	req := func(patch string) *stepReq {
		return &stepReq{r: &runner{opts: Options{ClusterType: "t", Component: "c", Patch: patch}}}
	}
	w := &writer{ready: make(chan struct{}, 1)}
	w.queue = []*stepReq{req("p3"), req("p1")}
	first := w.take()
	w.queue = []*stepReq{req("p2"), req("p0")} // asked for during the hold
	w.putBack(first[1:])                       // p3: the hold's time ran out
	var got []string
	for _, r := range w.take() {
		got = append(got, r.r.opts.Patch)
	}
	if want := []string{"p3", "p0", "p2"}; !slices.Equal(got, want) {
		t.Errorf("taken %q, want %q", got, want)
	}
}

// TestHoldMakesTheStepsItBeganWith: a hold ends once it has run its
// bound, but not before it made the steps it took when it began; the
// steps asked for since join it only while the bound has not passed.
func TestHoldMakesTheStepsItBeganWith(t *testing.T) {
	start := time.Date(2026, 11, 27, 2, 0, 0, 0, time.UTC)
	h := hold{start: start, first: 3, bound: 2 * time.Second}
	for _, tc := range []struct {
		name  string
		done  int
		after time.Duration
		over  bool
	}{
		{"a first step made, the bound passed", 1, time.Minute, false},
		{"the first steps made, the bound passed", 3, 2 * time.Second, true},
		{"the first steps made, within the bound", 3, time.Second, false},
		{"steps asked for since made, within the bound", 5, time.Second, false},
		{"steps asked for since made, the bound passed", 5, 3 * time.Second, true},
	} {
		if got := h.over(tc.done, start.Add(tc.after)); got != tc.over {
			t.Errorf("%s: over = %v, want %v", tc.name, got, tc.over)
		}
	}
	if !(hold{start: start, bound: time.Second}).over(1, start.Add(time.Second)) {
		t.Errorf("a hold that began with no step ready did not end at its bound")
	}
}
