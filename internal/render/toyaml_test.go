package render

import (
	"math"
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/values"
)

// checkToYAML fails unless helmToYAML gives sigs.k8s.io/yaml.Marshal's
// bytes for v.
func checkToYAML(t *testing.T, v any) {
	t.Helper()
	if got, want := helmToYAML(v), marshalToYAML(v); got != want {
		t.Errorf("toYaml of %#v:\n%s\nwant (sigs.k8s.io/yaml.Marshal):\n%s", v, got, want)
	}
}

// TestToYAMLAsHelm checks the direct way of toYaml against Marshal's on
// the values where the JSON round trip changes something: numbers that
// become ints or stay floats, strings YAML would read as something else,
// characters JSON leaves unescaped, long and multi-line strings.
func TestToYAMLAsHelm(t *testing.T) {
	cases := []any{
		nil, true, false, "", "plain", 0.0, math.Copysign(0, -1), 1.0, -3.0, 1.5, 0.1, 1e-7, 1e-6, 1e20, 1e21, 1e300,
		float64(1 << 53), float64(1<<53 + 1), int64(1 << 40), 9.223372036854775807e18, -9.223372036854775808e18, 1.8446744073709552e19,
		math.Inf(1), math.NaN(), 3, int64(-7), int32(4), uint(5),
		"true", "yes", "on", "~", "null", "0x1F", "1e3", "012", "2001-12-14", ".inf", "<<", "- a", "a: b", "#x",
		"{{ .Values.cluster.region }}", "{{`{{ .name }}`}}", "line\nbreak\n", "trailing ", " leading", "tab\there",
		"<html> & </html>", "\u2028\u2029", "nel\u0085x", "del\x7f", "c1\u0090", "bom\ufeff", "\ufffe", "\uffff",
		"bad\xffutf8", "emoji \U0001F600", "é ü 日本",
		strings.Repeat("word ", 40), strings.Repeat("x", 200), "a very long line that yaml folds " + strings.Repeat("at spaces ", 12),
		map[string]any{}, []any{}, map[string]any(nil), []any(nil), map[string]string{"a": "b"}, []string{"a"},
		map[string]any{"<<": map[string]any{"a": 1.0}}, map[string]any{"b": 1.0, "a": []any{"x", 2.0, nil, true}, "10": "ten", "9": "nine"},
		map[string]any{"nested": map[string]any{"list": []any{map[string]any{"k": "v", "n": 1.5}}}, "empty": map[string]any{}},
		map[string]any{"del\x7f": "key"}, map[string]any{"k": struct{ A int }{1}},
	}
	for _, v := range cases {
		checkToYAML(t, v)
	}
	deep := any("leaf")
	for range maxYAMLDepth + 5 {
		deep = []any{deep}
	}
	checkToYAML(t, deep)
}

// TestToYAMLDirectOnBenchValues checks that the values of the bench fleet
// take the direct way, not Marshal's, and give Marshal's bytes.
func TestToYAMLDirectOnBenchValues(t *testing.T) {
	f, _ := smallBenchFleet(t)
	for _, tg := range (&Renderer{Fleet: f}).Targets()[:10] {
		vals, err := f.TargetValues(tg.ClusterType, tg.Node)
		if err != nil {
			t.Fatal(err)
		}
		v := vals.Interface()
		if _, ok := yamlObject(v, 0); !ok {
			t.Errorf("%s: the values do not take the direct way", tg.ID())
		}
		checkToYAML(t, v)
	}
}

// FuzzToYAML compares the two ways on values decoded from YAML and on
// strings and numbers as they come.
func FuzzToYAML(f *testing.F) {
	f.Add("a: 1\nb: [x, 2.5, null, true]\nc: {d: 'e f'}\n", "s", 1.0)
	f.Add("- \"\\x7f\"\n- 1e21\n- .inf\n", "nel\u0085", 1e21)
	f.Add("k: |\n  multi\n  line\n", "\xff", math.Copysign(0, -1))
	f.Add("a:\n  b: |+\n    x\n\n  c: |2-\n     lead\n    y\n", "x\n\ny \n", 3.0)
	// Strings long enough to fold past 80 columns.
	f.Add("a:\n- k: it's a long line of words, long enough to fold where yaml.v2 folds it  twice\n",
		"{{ .Values.a }} and a long line of words, long enough to fold where yaml.v2 folds it '", 2.0)
	f.Fuzz(func(t *testing.T, doc, s string, x float64) {
		if v, err := values.Decode("fuzz.yaml", []byte(doc)); err == nil && len(doc) < 4096 {
			checkToYAML(t, v.Interface())
		}
		checkToYAML(t, map[string]any{"s": s, s: x, "l": []any{s, x, map[string]any{s: []any{s}}}})
	})
}
