package values

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// mark is the mark the block decoder tests record styles for: render's
// placeholder opening.
const mark = "\uE000"

// blockSeeds are documents of the subset and just outside it.
var blockSeeds = []string{
	"a:\nb: 1\n",
	"a:\n# c\n\nb: 1\n",
	"a:\n",
	"l:\n- \n- x\n-\n",
	"l:\n  - a: 1\n    b: |\n      x\n      y\n",
	"a: 'q'\nb: \"d\"\nc: []\nd: {}\n",
	"é: x\n  \n",
	"a:   \nb:\n",
	"k: v # c\n",
	"---\n# Source: x\napiVersion: v1\nkind: Application\nmetadata:\n  name: a\n---\nb: 2\n",
	"a: |-\n  x\n\n  y\n\nb: |+\n  z\n\n\nc: |\n  w\n",
	"a: |+\n  x",
	"a: |\n  x",
	"s: \"\\ttab\\n\\\\ \\\" \\ \"\nt: 'it''s'\n",
	"s: \"\\/\"\n",
	"args:\n- --log-level=info\n- -v\n- :x\n- ?y\n",
	"a: \uE0000\uE001\nb: '\uE0001\uE001'\nc: |\n  \uE0002\uE001\n\"\uE0003\uE001\": k\n",
	"a: 1\n  b: 2\n",
	"a: b\n  c\n",
	"- a: b\n  c\n",
	"a: b: c\n",
	"a: 'x\n  y'\n",
	"a: |2\n   x\n",
	"a: |\n\n    x\n  y\n",
	"a: |\n   \n  x\n",
	"a:\n  - x\n  b: 1\n",
	"- - x\n",
	"a: 1\na: 2\n",
	"'a': 1\n\"a\": 2\n",
	"a: 1\n...\n",
	"--- a\n",
	"a: -\n",
	"a: ---\n---x: 1\n",
	"? a\n: b\n",
	"a: \"\\x41\"\n",
	"a:\n- b\n- c: d\n  e: f\n-\n  g: h\nz: 0\n",
	"1: one\ntrue: t\n~: n\n0x1F: h\n",
	"  a: 1\n  b: 2\n",
	"a: [ ]\n",
	"a: {}   # c\nb: []#c\n",
	"a: 'x' y\n",
	"a: x #c\n  # d\nb: y\n",
	"a:\n    5\nb:\n  'x'\nc:\n  |\n   y\nd:\n  5\n  6\ne:\n- \n  7\n",
	"a:\n    5\n\n    6\n",
	"a:\n    5\n    # c\nb: 1\n",
}

// FuzzDecodeBlockAsYAMLv3 compares the block decoder with the yaml.v3
// way: whatever it decodes, it decodes as yaml.v3 does, to the position
// and the style.
func FuzzDecodeBlockAsYAMLv3(f *testing.F) {
	for _, s := range append(blockSeeds, decodeSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := sameAsYAMLv3(data); err != nil {
			t.Fatal(err)
		}
	})
}

// sameAsYAMLv3 decodes data both ways and returns their first difference,
// or nil when they agree or the block decoder leaves data to yaml.v3.
func sameAsYAMLv3(data []byte) error {
	fast := map[*Value]Style{}
	got, ok := decodeBlock("f.yaml", data, mark, fast)
	if !ok {
		return nil
	}
	slow := map[*Value]Style{}
	want, err := decodeAllYAML("f.yaml", data, mark, slow)
	if err != nil {
		return fmt.Errorf("the block decoder decodes what yaml.v3 refuses (%w):\n%q", err, data)
	}
	if len(got) != len(want) {
		return fmt.Errorf("%d documents, yaml.v3 %d:\n%q", len(got), len(want), data)
	}
	for i := range got {
		if diff := treeDiff(got[i], want[i], fast, slow, "doc"+fmt.Sprint(i)); diff != "" {
			return fmt.Errorf("%s\n%q", diff, data)
		}
	}
	if a, b := styleList(fast), styleList(slow); !slices.Equal(a, b) {
		return fmt.Errorf("styles %q, yaml.v3 %q:\n%q", a, b, data)
	}
	// Decode, of one document.
	one, err := Decode("f.yaml", data)
	yone, yerr := decodeYAML("f.yaml", data)
	switch {
	case (err == nil) != (yerr == nil):
		// One of the two is nil, which %w would print as %!w(<nil>).
		return fmt.Errorf("Decode: error %v, yaml.v3 %v:\n%q", err, yerr, data) //nolint:errorlint // a nil error, as said
	case err == nil:
		if diff := treeDiff(one, yone, nil, nil, "Decode"); diff != "" {
			return fmt.Errorf("%s\n%q", diff, data)
		}
	}
	return nil
}

// treeDiff describes the first difference between two decoded trees.
func treeDiff(a, b *Value, sa, sb map[*Value]Style, at string) string {
	switch {
	case a.Kind != b.Kind || a.Text != b.Text:
		return fmt.Sprintf("%s: %v %q, yaml.v3 %v %q", at, a.Kind, a.Text, b.Kind, b.Text)
	case a.Pos != b.Pos:
		return fmt.Sprintf("%s: at %v, yaml.v3 %v", at, a.Pos, b.Pos)
	case !slices.Equal(a.Keys, b.Keys) || !slices.Equal(a.KeyPos, b.KeyPos):
		return fmt.Sprintf("%s: keys %q at %v, yaml.v3 %q at %v", at, a.Keys, a.KeyPos, b.Keys, b.KeyPos)
	case len(a.Items) != len(b.Items) || (a.Items == nil) != (b.Items == nil):
		return fmt.Sprintf("%s: items %d (nil %v), yaml.v3 %d (nil %v)", at, len(a.Items), a.Items == nil, len(b.Items), b.Items == nil)
	}
	if s, ok := sa[a]; ok != hasStyle(sb, b) || ok && s != sb[b] {
		return fmt.Sprintf("%s: style %v (%v), yaml.v3 %v (%v)", at, s, ok, sb[b], hasStyle(sb, b))
	}
	for i := range a.Vals {
		if d := treeDiff(a.Vals[i], b.Vals[i], sa, sb, at+"."+a.Keys[i]); d != "" {
			return d
		}
	}
	for i := range a.Items {
		if d := treeDiff(a.Items[i], b.Items[i], sa, sb, fmt.Sprintf("%s[%d]", at, i)); d != "" {
			return d
		}
	}
	return ""
}

func hasStyle(m map[*Value]Style, v *Value) bool { _, ok := m[v]; return ok }

// styleList lists the recorded styles with their scalars' texts and
// positions, keys' included, sorted.
func styleList(m map[*Value]Style) []string {
	var out []string
	for v, s := range m {
		out = append(out, fmt.Sprintf("%v %q %v", s, v.Text, v.Pos))
	}
	slices.Sort(out)
	return out
}

func TestDecodeBlockSeeds(t *testing.T) {
	for _, s := range append(blockSeeds, decodeSeeds...) {
		if err := sameAsYAMLv3([]byte(s)); err != nil {
			t.Error(err)
		}
	}
}

// The block decoder decodes every YAML file of the examples and test
// fleets that it takes as yaml.v3 does, and it takes what strata writes:
// every file of the rendered trees.
func TestDecodeBlockTakesTheRepositoryYAML(t *testing.T) {
	left := map[string]string{}
	files := 0
	for _, top := range []string{"../../examples", "../testing/testfleet"} {
		err := filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			files++
			if err := sameAsYAMLv3(data); err != nil {
				t.Errorf("%s: %v", p, err)
			}
			if _, ok := decodeBlock(p, data, "", nil); !ok && strataOutput(top, p) {
				if _, err := decodeAllYAML(p, data, "", nil); err == nil {
					left[p] = firstOutside(data)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 100 {
		t.Fatalf("read %d YAML files, want the examples' and test fleets'", files)
	}
	for p, why := range left {
		t.Errorf("%s: left to yaml.v3 (%s)", p, why)
	}
	t.Logf("%d YAML files", files)
}

// strataOutput says whether p, under top, is in a rendered/ tree strata
// writes (rendered/ at the top of a fleet), not a directory of that name
// the repository's own tooling writes (the regional platform's
// argocd/rendered/).
func strataOutput(top, p string) bool {
	rel, err := filepath.Rel(top, p)
	if err != nil {
		return false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	return parts[0] == "rendered" || len(parts) > 1 && parts[1] == "rendered"
}

// firstOutside names the first line of data that the block decoder does
// not take alone, for a test's message.
func firstOutside(data []byte) string {
	lines := strings.Split(string(data), "\n")
	for n := 1; n <= len(lines); n++ {
		if _, ok := decodeBlock("f", []byte(strings.Join(lines[:n], "\n")), "", nil); !ok {
			return fmt.Sprintf("line %d: %q", n, lines[n-1])
		}
	}
	return "?"
}
