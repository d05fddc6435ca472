package cli

import (
	"encoding/json"
	"testing"
	"time"
)

// TestEmptyLists checks that a report's nil lists and maps print as [] and
// {} at any depth, that what marshals itself is kept, and that the report
// itself is not changed (a running rollout may still read its events).
func TestEmptyLists(t *testing.T) {
	type leaf struct {
		Names []string          `json:"names"`
		Tags  map[string]string `json:"tags"`
		Kept  []string          `json:"kept,omitempty"`
		Raw   []byte            `json:"raw"`
		When  time.Time         `json:"when"`
	}
	type report struct {
		Leaf   *leaf          `json:"leaf"`
		Leaves []leaf         `json:"leaves"`
		ByName map[string]any `json:"byName"`
		Any    any            `json:"any"`
		Nil    *leaf          `json:"nil"`
	}
	shared := &leaf{}
	r := report{Leaf: shared, Leaves: []leaf{{}}, ByName: map[string]any{"x": leaf{}}, Any: &leaf{}}
	data, err := json.Marshal(emptyLists(r))
	if err != nil {
		t.Fatal(err)
	}
	l := `{"names":[],"tags":{},"raw":null,"when":"0001-01-01T00:00:00Z"}`
	want := `{"leaf":` + l + `,"leaves":[` + l + `],"byName":{"x":` + l + `},"any":` + l + `,"nil":null}`
	if string(data) != want {
		t.Errorf("got  %s\nwant %s", data, want)
	}
	if shared.Names != nil || r.Leaves[0].Names != nil || r.Any.(*leaf).Names != nil {
		t.Error("the report itself was changed")
	}
	// A loop through pointers ends at the loop.
	type node struct {
		Next *node    `json:"next"`
		List []string `json:"list"`
	}
	n := &node{}
	n.Next = n
	if got := emptyLists(n).(*node); got.List == nil || got.Next != n {
		t.Errorf("a loop: got %+v", got)
	}
}
