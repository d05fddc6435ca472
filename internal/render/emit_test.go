package render

import (
	"math"
	"strings"
	"testing"

	yamlv2 "go.yaml.in/yaml/v2"

	"github.com/strata-fleet/strata/internal/values"
)

// checkEmit compares emitYAML with go.yaml.in/yaml/v2's Marshal of obj
// when emitYAML takes obj, and reports whether it did.
func checkEmit(t *testing.T, obj any) bool {
	t.Helper()
	got, ok := emitYAML(obj)
	if !ok {
		return false
	}
	want, err := yamlv2.Marshal(obj)
	if err != nil {
		t.Fatalf("Marshal(%#v): %v", obj, err)
	}
	if got != string(want) {
		t.Errorf("emitYAML(%#v):\n%s\nwant (yaml.v2):\n%s", obj, got, want)
	}
	return true
}

// emitYAML writes what yaml.v2 writes: key order (letters after other
// characters, numbers by value), quoting, flow {} and [], lists not
// indented under a key, and the cases it leaves to yaml.v2.
func TestEmitAsYAMLv2(t *testing.T) {
	keys := []string{"a1", "a01", "a10", "a2", "a001", "b", "B", "_x", "-y", "1", "10", "9", "a.b", "a-b", "a_b",
		"ab", "a", "Z", "z0", "z00", "x9y", "x10y", "x09y", ".", "~", "yes", "on", "a b", "a:b", "#c"}
	m := map[any]any{}
	for i, k := range keys {
		m[k] = i
	}
	taken := []any{
		m, nil, true, 1, int64(-2), uint64(1 << 63), 1.5, 1e21, math.Copysign(0, -1),
		"plain", "", "true", "y", "N", "null", "~", "0", "-1", "+1", "0x1F", "0o17", "0b101", "-0b101", "1_000", "1e3", "1.5e+3",
		".5", ".inf", "-.inf", ".nan", ".x", "1.2.3", "150m", "--metrics-bind-address=:8080", "-x:1", "+:1", "0 3 * * *", "+x", "<<", "- a", "-a", "? a", "?a", ": a", ":a",
		"a: b", "a:b", "a:", "a #b", "a#b", "#a", "---x", "...x", "--x", " lead", "trail ", "it's", "'q'", "@x", "`x", "%x",
		"a, b", "[x]", "{x}", "&a", "*a", "!t", "|x", ">x", "x|y", `say "hi"`, "back\\slash",
		"{{ .Values.cluster.region }}", "fleet-backups-{{ .Values.cluster.region }}",
		strings.Repeat("x", 200), strings.Repeat("word ", 10),
		map[any]any{}, []any{}, []any{map[any]any{}, []any{}, nil, "x", map[any]any{"a": []any{"b"}, "c": map[any]any{"d": 1}}},
		map[any]any{"l": []any{"x", map[any]any{"k": "v", "n": []any{1, 2}}}, "m": map[any]any{"e": map[any]any{}}},
		map[any]any{strings.Repeat("k", maxSimpleKey): "v"},
		// Strings that fold past 80 columns: in a mapping, in a list, in
		// a list's mapping, in single quotes, with runs of spaces.
		map[any]any{"a": map[any]any{"b": strings.Repeat("long words ", 7)}},
		map[any]any{"key": strings.Repeat("word ", 20) + "end"},
		map[any]any{"a": []any{strings.Repeat("word ", 20) + "end", map[any]any{"k": strings.Repeat("word ", 20) + "end"}}},
		map[any]any{"a": "it's " + strings.Repeat("word ", 20) + "end", "b": "{{ " + strings.Repeat("word ", 20) + "}}"},
		map[any]any{"a": "x  " + strings.Repeat("word  ", 15) + "y", "b": strings.Repeat("x", 79) + " y z", "c": strings.Repeat("x", 90) + " y"},
		map[any]any{"a": "'" + strings.Repeat("word ", 20) + "'", "b": strings.Repeat("word ", 16) + "' x"},
		map[any]any{strings.Repeat("k", 85): " lead " + strings.Repeat("word ", 3) + "end", strings.Repeat("j", 85): "x y"},
		// Strings of several lines, in literal blocks: each chomping, the
		// indentation indicator, empty lines, in a mapping and in a list.
		map[any]any{"a": "x\ny\n", "b": "x\ny", "c": "x\n\n", "d": "\n", "e": "\n\n", "f": " lead\nx\n", "g": "\nx"},
		map[any]any{"a": map[any]any{"b": "line one\n  indented\n\nthree\n"}, "c": []any{"x\ny", map[any]any{"k": "---\n# c\n"}}},
	}
	for _, obj := range taken {
		if !checkEmit(t, obj) {
			t.Errorf("emitYAML leaves %#v to yaml.v2", obj)
		}
	}
	// Left to yaml.v2, and what it writes for them.
	for _, obj := range []any{
		"multi\nline", "tab\there", "é", "del\x7f", "2001-12-14", "1:20", "-1:20:30",
		strings.Repeat("word ", 20), []any{[]any{"nested"}}, map[any]any{"09": 1, "0x1F": 2, "1": 3, "9": 4}, map[any]any{"10": 1, "1e3": 2, "9": 3}, map[any]any{strings.Repeat("k", maxSimpleKey+1): "v"},
		map[any]any{1: "int key"},
		map[any]any{"a": "x\n "}, map[any]any{"a": "x \ny"}, map[any]any{"a": "x\n\ty"}, map[any]any{"a": "x\r\ny"},
		map[any]any{"a\nb": 1}, []any{"é\nx"},
	} {
		if checkEmit(t, obj) {
			t.Errorf("emitYAML writes %#v itself, which it should leave to yaml.v2", obj)
		}
	}
}

// The items of the bench fleet are what emitYAML is for: it writes nearly
// every mapping and list of every target's values.
func TestEmitTakesTheBenchItems(t *testing.T) {
	f, _ := smallBenchFleet(t)
	nodes := 0
	var left []string
	for _, ct := range f.ClusterTypes {
		for _, n := range ct.Targets {
			vals, err := f.TargetValues(ct, n)
			if err != nil {
				t.Fatal(err)
			}
			var walk func(v *values.Value)
			walk = func(v *values.Value) {
				if v.Kind != values.Map && v.Kind != values.List {
					return
				}
				for _, c := range v.Vals {
					walk(c)
				}
				for _, c := range v.Items {
					walk(c)
				}
				nodes++
				obj, ok := yamlObject(v.Shared(), 0)
				if !ok || !checkEmit(t, obj) {
					left = append(left, string(values.Encode(v)))
				}
			}
			walk(vals)
		}
	}
	if nodes < 1000 {
		t.Fatalf("checked %d mappings and lists", nodes)
	}
	// What it leaves are the mappings around multi-line strings (an
	// alertmanager configuration).
	if len(left)*20 > nodes {
		t.Errorf("emitYAML leaves %d of %d mappings and lists to yaml.v2, such as:\n%s", len(left), nodes, left[0])
	}
	t.Logf("emitYAML takes %d of %d mappings and lists", nodes-len(left), nodes)
}
