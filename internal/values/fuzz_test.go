package values

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// decodeSeeds are documents of the shapes strata reads: fleet
// configuration, values with templates, YAML 1.1 scalars, anchors, block
// scalars, and a few malformed ones.
var decodeSeeds = []string{
	"",
	"a: 1\n",
	"dimensions: [environments, sectors, regions]\nsequence:\n  environments:\n  - name: integration\n    promotion: manual\n",
	"applications:\n  cert-manager:\n    source:\n      targetRevision: \"v1.18.2\"\n      helm:\n        valuesObject:\n          replicaCount: 3\n          crds: {enabled: yes}\n",
	"destination:\n  name: \"{{`{{ .Values.cluster.name }}`}}\"\npath: \"rendered/{{ .Values.cluster.region }}\"\n",
	"a: yes\nb: Off\nc: 'yes'\nd: 0755\ne: 0x1F\nf: 1_000\ng: 1.0e+20\nh: .inf\ni: -.inf\nj: .nan\nk: 190:20:30\nl: ~\n",
	"s: |\n  line1\n  line2\nt: >-\n  folded\n  text\nu: |+\n  kept\n\n",
	"base: &b {x: 1, z: 2}\nd:\n  <<: *b\n  z: 3\n",
	"l:\n- a: 1\n  b:\n  - x\n- - z\n- []\n- {}\n",
	"'key with: colon': v\n\"quoted\\ttab\": \"x\\ny\"\n? complex\n: value\n",
	"a: !!str 123\nb: !!int \"7\"\nc: !!float 1\nd: !!binary aGVsbG8=\n",
	"a: 2024-01-02\nb: '2024-01-02T10:00:00Z'\nc: '@at'\nd: '%pct'\ne: '- dash'\n",
	"a: [1, 2\n",
	"a: 1\na: 2\n",
	"a: 1\n---\nb: 2\n",
	"a: &x [*x]\n",
	"- 1\n- two\n- 3.0\n",
	"plain scalar\n",
}

func FuzzDecode(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Decode("fuzz.yaml", data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Decode error is a %T, not an *Error: %v", err, err)
			}
			return
		}
		if countNodes(v) > 10000 {
			return // an alias bomb within the node bound: slow to round-trip, nothing new to learn
		}
		out := Encode(v)
		again, err := Decode("encoded.yaml", out)
		if err != nil {
			t.Fatalf("Encode's output does not decode: %v\ninput:\n%q\noutput:\n%s", err, data, out)
		}
		if !Equal(v, again) {
			t.Fatalf("Encode's output decodes to other data\ninput:\n%q\noutput:\n%s\nre-encoded:\n%s", data, out, Encode(again))
		}
		checkEncodeAround(t, v, out)
		if twice := Encode(again); string(twice) != string(out) {
			t.Fatalf("encoding is not stable\nfirst:\n%s\nsecond:\n%s", out, twice)
		}
	})
}

// checkEncodeAround leaves every scalar of v out with EncodeAround and
// puts each back with AppendScalar: the text must be Encode's.
func checkEncodeAround(t *testing.T, v *Value, want []byte) {
	t.Helper()
	holes := map[*Value]bool{}
	var walk func(*Value)
	walk = func(n *Value) {
		switch n.Kind {
		case Map:
			for _, c := range n.Vals {
				walk(c)
			}
		case List:
			for _, c := range n.Items {
				walk(c)
			}
		}
		if n != v && (n.Kind != Map || len(n.Keys) == 0) && (n.Kind != List || len(n.Items) == 0) {
			holes[n] = true
		}
	}
	walk(v)
	pieces, at := EncodeAround(v, holes)
	if len(pieces) != len(at)+1 {
		t.Fatalf("EncodeAround gave %d pieces for %d holes", len(pieces), len(at))
	}
	var b []byte
	for i, p := range pieces {
		b = append(b, p...)
		if i < len(at) {
			b = AppendScalar(b, at[i].V, at[i].Indent)
		}
	}
	if string(b) != string(want) {
		t.Fatalf("EncodeAround filled with AppendScalar:\n%s\nEncode:\n%s", b, want)
	}
}

func countNodes(v *Value) int {
	n := 1
	for _, c := range v.Vals {
		n += countNodes(c)
	}
	for _, c := range v.Items {
		n += countNodes(c)
	}
	return n
}

// mergeSeeds are triples of documents for FuzzMerge.
var mergeSeeds = [][3]string{
	{"a: 1\nb: {c: 2}\n", "b: {d: 3}\ne: 4\n", "b: {c: 5}\n"},
	{"items: [1, 2, 3]\n", "items: [4]\n", "other: x\n"},
	{"a: {b: 1}\n", "a: null\n", "a: null\n"},
	{"z: 1\na: 1\n", "a: 2\nm: 3\n", "q: 0\nz: 9\n"},
	{"applications:\n  p:\n    project: default\n    syncPolicy: {automated: {prune: false}}\n",
		"applications:\n  p:\n    source: {targetRevision: 77.8.0}\n",
		"applications:\n  p:\n    source: {targetRevision: 77.9.0}\n    syncPolicy: {syncOptions: [ServerSideApply=true]}\n"},
	{"k: {p: 1}\n", "k: 5\n", "k: {q: 2}\n"},
	{"", "a: 1\n", "- x\n"},
}

func FuzzMerge(f *testing.F) {
	for _, s := range mergeSeeds {
		f.Add([]byte(s[0]), []byte(s[1]), []byte(s[2]))
	}
	f.Fuzz(func(t *testing.T, da, db, dc []byte) {
		a, errA := Decode("a.yaml", da)
		b, errB := Decode("b.yaml", db)
		c, errC := Decode("c.yaml", dc)
		if errA != nil || errB != nil || errC != nil {
			return
		}
		encA, encB := string(Encode(a)), string(Encode(b))
		empty := NewMap(Pos{File: "empty.yaml"})

		ab := Merge(a, b)
		if string(Encode(a)) != encA || string(Encode(b)) != encB {
			t.Fatalf("Merge modified an input")
		}
		if a.Kind == Map {
			if got := string(Encode(Merge(a, empty))); got != encA {
				t.Fatalf("Merge(x, {}) != x\nx:\n%s\ngot:\n%s", encA, got)
			}
			if got := string(Encode(Merge(empty, a))); got != encA {
				t.Fatalf("Merge({}, x) != x\nx:\n%s\ngot:\n%s", encA, got)
			}
		}
		if got := string(Encode(Merge(a, a))); got != encA {
			t.Fatalf("Merge(x, x) != x\nx:\n%s\ngot:\n%s", encA, got)
		}
		if d := cmp.Diff(Merge(ab, c), MergeAll(a, b, c), cmpopts.IgnoreUnexported(Value{})); d != "" {
			t.Fatalf("MergeAll(a, b, c) != Merge(Merge(a, b), c) (-want +got):\n%s", d)
		}
		if got := string(Encode(Merge(ab, b))); got != string(Encode(ab)) {
			t.Fatalf("applying the same layer twice changed the result\nonce:\n%s\ntwice:\n%s", Encode(ab), got)
		}
		if a.Kind == Map && b.Kind == Map && c.Kind == Map && shapesAgree(a, b, c) {
			left := Encode(Merge(ab, c))
			right := Encode(Merge(a, Merge(b, c)))
			if string(left) != string(right) {
				t.Fatalf("Merge is not associative\na:\n%s\nb:\n%s\nc:\n%s\n(a+b)+c:\n%s\na+(b+c):\n%s", encA, encB, Encode(c), left, right)
			}
		}
	})
}

// shapesAgree reports whether no key path holds a mapping in one tree and
// something else in another. Merge is associative on such trees only: a
// layer that replaces a mapping with a scalar hides the mapping from
// later layers (see TestMergeIsNotAssociativeWhenALayerChangesAKind).
func shapesAgree(trees ...*Value) bool {
	var maps, others []*Value
	for _, t := range trees {
		if t == nil {
			continue
		}
		if t.Kind == Map {
			maps = append(maps, t)
		} else {
			others = append(others, t)
		}
	}
	if len(maps) == 0 {
		return true
	}
	if len(others) > 0 {
		return false
	}
	keys := map[string]bool{}
	for _, m := range maps {
		for _, k := range m.Keys {
			keys[k] = true
		}
	}
	for k := range keys {
		var sub []*Value
		for _, m := range maps {
			sub = append(sub, m.Get(k))
		}
		if !shapesAgree(sub...) {
			return false
		}
	}
	return true
}
