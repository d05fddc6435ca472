package values

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// mergeLayers is Merge layer by layer, what MergeAll must equal.
func mergeLayers(base *Value, overs ...*Value) *Value {
	for _, o := range overs {
		base = Merge(base, o)
	}
	return base
}

// sameTree fails t when got differs from want: keys, kinds, texts and the
// position of every node, and which nodes are the layers' own (the
// renderer keeps what it rendered of a value object by its address).
func sameTree(t *testing.T, want, got *Value, layers ...*Value) {
	t.Helper()
	if d := cmp.Diff(want, got, cmpopts.IgnoreUnexported(Value{})); d != "" {
		t.Fatalf("MergeAll differs from Merge layer by layer (-want +got):\n%s", d)
	}
	own := map[*Value]bool{}
	var mark func(v *Value)
	mark = func(v *Value) {
		if v != nil {
			own[v] = true
			for _, c := range v.Vals {
				mark(c)
			}
		}
	}
	for _, l := range layers {
		mark(l)
	}
	var walk func(path string, w, g *Value)
	walk = func(path string, w, g *Value) {
		if own[w] && w != g {
			t.Fatalf("%s: a copy, where Merge gives the layer's own node", path)
		}
		for i := range w.Vals {
			walk(path+"."+w.Keys[i], w.Vals[i], g.Vals[i])
		}
	}
	walk("", want, got)
}

// MergeAll merges many layers in one pass and gives what merging them one
// after the other gives, down to positions and shared nodes: a target's
// values are its components' layers merged (fleet.TargetValues).
func TestMergeAllIsMergeLayerByLayer(t *testing.T) {
	decode := func(name, doc string) *Value {
		v, err := Decode(name, []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	var layers []*Value
	for i := range 30 {
		layers = append(layers, decode(fmt.Sprintf("c%02d.yaml", i), fmt.Sprintf(
			"applications:\n  c%02d:\n    source: {chart: c%02d, targetRevision: 1.0.%d}\n  shared:\n    labels: {l%d: x}\n", i, i, i, i)))
	}
	for _, tc := range []struct {
		name   string
		layers []*Value
	}{
		{"a component's item each, and one item they all set", layers},
		{"a layer that replaces a mapping, then mappings again", append(append(append([]*Value{}, layers[:10]...),
			decode("scalar.yaml", "applications: none\n"), decode("list.yaml", "applications: [a]\n")), layers[10:]...)},
		{"a layer that is not a mapping", append(append([]*Value{}, layers[:3]...), decode("list.yaml", "- a\n"), layers[3])},
		{"nil layers", append([]*Value{nil}, layers[0], nil, layers[1])},
		{"one layer", layers[:1]},
		{"none", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := decode("base.yaml", "cluster: {name: a}\napplications: {}\n")
			want, got := mergeLayers(base, tc.layers...), MergeAll(base, tc.layers...)
			sameTree(t, want, got, append([]*Value{base}, tc.layers...)...)
			if got := MergeAll(nil, tc.layers...); !cmp.Equal(mergeLayers(nil, tc.layers...), got, cmpopts.IgnoreUnexported(Value{})) {
				t.Errorf("MergeAll(nil, ...) differs from Merge layer by layer")
			}
		})
	}
}
