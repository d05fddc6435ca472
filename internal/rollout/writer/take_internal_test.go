package rollout

import (
	"slices"
	"testing"
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
