package values

import (
	"reflect"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func mustDecode(t testing.TB, src string) *Value {
	t.Helper()
	v, err := Decode("test.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	return v
}

func TestEncodeRoundTrip(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"nested maps and indentless lists", "a:\n  b: [1, 2]\n  c: {}\nd: []\n", "a:\n  b:\n  - 1\n  - 2\n  c: {}\nd: []\n"},
		{"yaml 1.1 booleans become canonical", "a: yes\nb: Off\nc: 'yes'\n", "a: true\nb: false\nc: 'yes'\n"},
		{"octal, hex and underscores", "a: 0755\nb: 0x1F\nc: 1_000\n", "a: 493\nb: 31\nc: 1000\n"},
		{"floats keep a dot", "a: 1.10\nb: 1.0e+20\nc: 1e5\n", "a: 1.1\nb: 1.0e+20\nc: '1e5'\n"},
		{"strings that look like other types are quoted", "a: '1.0'\nb: 'null'\nc: '2024-01-02'\nd: 'y'\n", "a: '1.0'\nb: 'null'\nc: '2024-01-02'\nd: 'y'\n"},
		{"templates survive", "a: \"{{ .Values.x }}\"\nb: \"{{`{{ .name }}`}}\"\n", "a: '{{ .Values.x }}'\nb: '{{`{{ .name }}`}}'\n"},
		{"multi-line strings use literal blocks", "a: |\n  line1\n  line2\nb: |-\n  x\n  y\n", "a: |\n  line1\n  line2\nb: |-\n  x\n  y\n"},
		{"lists of maps", "l:\n- a: 1\n  b:\n  - x\n- - z\n", "l:\n- a: 1\n  b:\n  - x\n- - z\n"},
		{"null is kept", "a: ~\nb:\n", "a: null\nb: null\n"},
		{"merge keys", "base: &b {x: 1, z: 2}\nd:\n  <<: *b\n  z: 3\n", "base:\n  x: 1\n  z: 2\nd:\n  z: 3\n  x: 1\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := string(Encode(mustDecode(t, tc.in)))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Encode (-want +got):\n%s", diff)
			}
			// The output reads back as the same data.
			if again := mustDecode(t, got); !Equal(again, mustDecode(t, tc.in)) {
				t.Errorf("output does not read back as the input:\n%s", got)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"duplicate key", "a: 1\nb: 2\na: 3\n", "a: duplicate key (first defined at line 1)\n    test.yaml:3:1"},
		{"malformed", "a: [1, 2\n", "invalid YAML"},
		{"two documents", "a: 1\n---\nb: 2\n", "expected one YAML document"},
		{"bad tag", "a: !!int hello\n", "not a valid !!int"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode("test.yaml", []byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Decode error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	tests := []struct{ name, base, over, want string }{
		{"maps merge recursively", "a: 1\nb: {c: 2}\n", "b: {d: 3}\ne: 4\n", "a: 1\nb:\n  c: 2\n  d: 3\ne: 4\n"},
		{"override wins", "a: 1\nb: {c: 2}\n", "a: 10\nb: {c: 20}\n", "a: 10\nb:\n  c: 20\n"},
		{"lists replace", "items: [1, 2, 3]\n", "items: [4, 5]\n", "items:\n- 4\n- 5\n"},
		{"null replaces and is kept", "a: {b: 1}\n", "a: null\n", "a: null\n"},
		{"mapping replaces scalar", "config: simple\n", "config: {complex: object}\n", "config:\n  complex: object\n"},
		{"scalar replaces mapping", "config: {complex: object}\n", "config: simple\n", "config: simple\n"},
		{"keys keep first-seen order", "z: 1\na: 1\n", "a: 2\nm: 3\n", "z: 1\na: 2\nm: 3\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base, over := mustDecode(t, tc.base), mustDecode(t, tc.over)
			before := string(Encode(base))
			got := string(Encode(Merge(base, over)))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Merge (-want +got):\n%s", diff)
			}
			if string(Encode(base)) != before {
				t.Errorf("Merge modified its base")
			}
		})
	}
}

func TestMergeKeepsProvenance(t *testing.T) {
	base, _ := Decode("defaults.yaml", []byte("a:\n  b: 1\n  c: 2\n"))
	over, _ := Decode("override.yaml", []byte("a:\n  c: 3\n"))
	m := Merge(base, over)
	if got := m.Lookup("a", "b").Pos.String(); got != "defaults.yaml:2:6" {
		t.Errorf("a.b set at %s, want defaults.yaml:2:6", got)
	}
	if got := m.Lookup("a", "c").Pos.String(); got != "override.yaml:2:6" {
		t.Errorf("a.c set at %s, want override.yaml:2:6", got)
	}
}

func TestDecodeAllStyles(t *testing.T) {
	doc := "a: plain @\nb: 'single @'\nc: \"double @\"\nd: |\n  literal @\ne: >\n  folded @\nf: !!str tagged @\ng: [in flow @]\nh: no mark\n"
	want := map[string]Style{"a": PlainStyle, "b": SingleQuotedStyle, "c": DoubleQuotedStyle, "d": LiteralStyle,
		"e": FoldedStyle, "f": TaggedStyle, "g": InFlowStyle}
	vs, styles, err := DecodeAllStyles("s.yaml", []byte(doc), "@")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Style{}
	for i, k := range vs[0].Keys {
		v := vs[0].Vals[i]
		if k == "g" {
			v = v.Items[0]
		}
		if s, ok := styles[v]; ok {
			got[k] = s
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("styles = %v, want %v", got, want)
	}
}

func TestPlain(t *testing.T) {
	for _, tc := range []struct {
		text string
		kind Kind
		want string
	}{
		{"", Null, "null"}, {"~", Null, "null"}, {"on", Bool, "true"}, {"0x1F", Int, "31"},
		{"1e3", String, "1e3"}, {"1.5", Float, "1.5"}, {"08", String, "08"}, {"us-east1", String, "us-east1"},
	} {
		if v := Plain(tc.text, Pos{}); v.Kind != tc.kind || v.Text != tc.want {
			t.Errorf("Plain(%q) = %s %q, want %s %q", tc.text, v.Kind, v.Text, tc.kind, tc.want)
		}
	}
}

// numberBytes may say no before intRE, floatRE and yaml12RE run only if
// every byte they match is one it knows: collect the characters of their
// literals and classes from the parsed expressions.
func TestNumberBytesCoverTheNumberPatterns(t *testing.T) {
	var walk func(re *syntax.Regexp)
	walk = func(re *syntax.Regexp) {
		switch re.Op {
		case syntax.OpLiteral:
			for _, r := range re.Rune {
				if r > 0x7f || !numberByte[r] {
					t.Errorf("a number pattern matches %q, which numberBytes refuses", r)
				}
			}
		case syntax.OpCharClass:
			for i := 0; i < len(re.Rune); i += 2 {
				for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
					if r > 0x7f || !numberByte[r] {
						t.Errorf("a number pattern matches %q, which numberBytes refuses", r)
					}
				}
			}
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			t.Errorf("a number pattern matches any character: %s", re)
		}
		for _, sub := range re.Sub {
			walk(sub)
		}
	}
	for _, re := range []*regexp.Regexp{intRE, floatRE, yaml12RE} {
		parsed, err := syntax.Parse(re.String(), syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		walk(parsed)
	}
	for _, s := range []string{"150m", "256Mi", "0 3 * * *", "720h", "1.2.3-rc"} {
		if k, _ := resolve(s); k != String {
			t.Errorf("resolve(%q) = %v, want a string", s, k)
		}
	}
}
