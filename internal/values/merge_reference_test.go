package values

// The behaviours of the reference's deep_merge and YAML helpers
// (patjlm/gcp-hcp-apps, branch generator: hack/test_utils.py TestDeepMerge
// and TestYamlOperations), ported to strata. Where strata deliberately
// differs, the test name says so.

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func decodeRef(t *testing.T, src string) *Value {
	t.Helper()
	v, err := Decode("ref.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Decode(%q): %v", src, err)
	}
	return v
}

func TestReferenceDeepMerge(t *testing.T) {
	tests := []struct{ name, base, over, want string }{
		{
			name: "mappings merge recursively and new keys are added",
			base: "a: 1\nb: {c: 2}\n", over: "b: {d: 3}\ne: 4\n",
			want: "a: 1\nb:\n  c: 2\n  d: 3\ne: 4\n",
		},
		{
			name: "the override's scalars win at every depth",
			base: "a: 1\nb: {c: 2}\n", over: "a: 10\nb: {c: 20}\n",
			want: "a: 10\nb:\n  c: 20\n",
		},
		{
			name: "lists are replaced, not appended",
			base: "items: [1, 2, 3]\n", over: "items: [4, 5]\n",
			want: "items:\n- 4\n- 5\n",
		},
		{
			name: "an empty base takes the override",
			base: "{}\n", over: "a: 1\nb: {c: 2}\n",
			want: "a: 1\nb:\n  c: 2\n",
		},
		{
			name: "an empty override keeps the base",
			base: "a: 1\nb: {c: 2}\n", over: "{}\n",
			want: "a: 1\nb:\n  c: 2\n",
		},
		{
			name: "two empty mappings merge to an empty mapping",
			base: "{}\n", over: "{}\n",
			want: "{}\n",
		},
		{
			name: "deep nesting merges level by level and replaces lists inside",
			base: "level1:\n  level2:\n    level3: {existing: value, array: [1, 2, 3]}\n",
			over: "level1:\n  level2:\n    level3: {new: addition, array: [4, 5]}\n    level2b: new_branch\nnew_root: value\n",
			want: `level1:
  level2:
    level3:
      existing: value
      array:
      - 4
      - 5
      new: addition
    level2b: new_branch
new_root: value
`,
		},
		{
			name: "a mapping replaces a scalar",
			base: "config: simple_string\n", over: "config: {complex: object}\n",
			want: "config:\n  complex: object\n",
		},
		{
			name: "a scalar replaces a mapping",
			base: "config: {complex: object}\n", over: "config: simple_string\n",
			want: "config: simple_string\n",
		},
		{
			name: "a string override replaces the whole base",
			base: "a: 1\nb: 2\n", over: "not_a_dict\n",
			want: "not_a_dict\n",
		},
		{
			name: "an integer override replaces the whole base",
			base: "a: 1\nb: 2\n", over: "42\n",
			want: "42\n",
		},
		{
			name: "a null override replaces the whole base",
			base: "a: 1\nb: 2\n", over: "null\n",
			want: "null\n",
		},
		{
			name: "a list override replaces the whole base",
			base: "a: 1\nb: 2\n", over: "[1, 2, 3]\n",
			want: "- 1\n- 2\n- 3\n",
		},
		{
			name: "a null value replaces and its key is kept",
			base: "a: {b: 1}\nc: 2\n", over: "a: null\n",
			want: "a: null\nc: 2\n",
		},
		{
			name: "real-world application values",
			base: `applications:
  prometheus:
    source:
      repoURL: https://charts.example.com
      targetRevision: 1.0.0
      helm:
        valuesObject:
          replicas: 1
          resources: {requests: {memory: 512Mi}}
    syncPolicy: {syncOptions: [CreateNamespace=true]}
`,
			over: `applications:
  prometheus:
    source:
      targetRevision: 2.0.0
      helm:
        valuesObject:
          replicas: 3
          resources:
            requests: {cpu: 100m}
            limits: {memory: 1Gi}
    syncPolicy: {syncOptions: [ServerSideApply=true]}
  grafana:
    source: {repoURL: 'https://grafana.github.io/helm-charts'}
`,
			want: `applications:
  prometheus:
    source:
      repoURL: https://charts.example.com
      targetRevision: 2.0.0
      helm:
        valuesObject:
          replicas: 3
          resources:
            requests:
              memory: 512Mi
              cpu: 100m
            limits:
              memory: 1Gi
    syncPolicy:
      syncOptions:
      - ServerSideApply=true
  grafana:
    source:
      repoURL: https://grafana.github.io/helm-charts
`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := string(Encode(Merge(decodeRef(t, tc.base), decodeRef(t, tc.over))))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Merge (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReferenceDeepMergeDoesNotModifyItsInputs(t *testing.T) {
	base, over := decodeRef(t, "a: 1\nb: {c: 2}\n"), decodeRef(t, "b: {d: 3}\ne: 4\n")
	wantBase, wantOver := string(Encode(base)), string(Encode(over))
	got := string(Encode(Merge(base, over)))
	if diff := cmp.Diff(wantBase, string(Encode(base))); diff != "" {
		t.Errorf("base changed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantOver, string(Encode(over))); diff != "" {
		t.Errorf("override changed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("a: 1\nb:\n  c: 2\n  d: 3\ne: 4\n", got); diff != "" {
		t.Errorf("Merge (-want +got):\n%s", diff)
	}
}

// A Go nil is the absence of a layer (a file that does not exist), unlike
// YAML null, which replaces like the reference's None.
func TestMergeWithNilIsNoLayerUnlikeNull(t *testing.T) {
	base := decodeRef(t, "a: 1\n")
	if got := Merge(base, nil); got != base {
		t.Errorf("Merge(base, nil) = %s, want base", Encode(got))
	}
	if got := Merge(nil, base); got != base {
		t.Errorf("Merge(nil, over) = %s, want over", Encode(got))
	}
	if got := Merge(base, decodeRef(t, "~\n")); got.Kind != Null {
		t.Errorf("Merge(base, null) = %s, want null", Encode(got))
	}
}

// Merge is not associative when a middle layer changes a mapping into a
// scalar: the scalar hides the base mapping from the later layer. This is
// the reference's semantics (deep_merge behaves the same) and strata keeps
// it; layers are always applied left to right, never regrouped.
func TestMergeIsNotAssociativeWhenALayerChangesAKind(t *testing.T) {
	a, b, c := decodeRef(t, "k: {p: 1}\n"), decodeRef(t, "k: 5\n"), decodeRef(t, "k: {q: 2}\n")
	left := string(Encode(Merge(Merge(a, b), c)))
	right := string(Encode(Merge(a, Merge(b, c))))
	if diff := cmp.Diff("k:\n  q: 2\n", left); diff != "" {
		t.Errorf("(a+b)+c (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("k:\n  p: 1\n  q: 2\n", right); diff != "" {
		t.Errorf("a+(b+c) (-want +got):\n%s", diff)
	}
}

func TestReferenceLoadYAML(t *testing.T) {
	v := decodeRef(t, "key: value\nnested:\n  item: 123\n")
	if diff := cmp.Diff("key: value\nnested:\n  item: 123\n", string(Encode(v))); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if item := v.Lookup("nested", "item"); item == nil || item.Kind != Int || item.Text != "123" {
		t.Errorf("nested.item = %+v, want the integer 123", item)
	}
}

func TestReferenceMalformedYAMLIsAnError(t *testing.T) {
	_, err := Decode("malformed.yaml", []byte("invalid: yaml: content: [unclosed"))
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Decode error = %v, want an *Error", err)
	}
	if e.Pos.File != "malformed.yaml" || e.Pos.Line != 1 || !strings.Contains(e.Msg, "invalid YAML") {
		t.Errorf("error = %q at %s, want invalid YAML at malformed.yaml:1", e.Msg, e.Pos)
	}
}

// The reference writes with width=1000 so that long values stay on one
// line; strata never wraps.
func TestReferenceEncodeDoesNotWrapLongLines(t *testing.T) {
	long := strings.Repeat("very_long_value_that_might_wrap ", 40) + "end"
	v := NewMap(Pos{})
	v.Set("very_long_key_name", NewString("very_long_value_that_might_wrap", Pos{}))
	v.Set("longer", NewString(long, Pos{}))
	out := string(Encode(v))
	want := "very_long_key_name: very_long_value_that_might_wrap\nlonger: " + long + "\n"
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("Encode (-want +got):\n%s", diff)
	}
	if again := decodeRef(t, out); !Equal(again, v) {
		t.Errorf("output does not read back as the input")
	}
}
