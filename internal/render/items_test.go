package render

import (
	"regexp"
	"testing"

	"github.com/strata-fleet/strata/internal/testing/benchfleet"
)

// TestItemsEqualWholeChart renders pass 1 of a small bench fleet item by
// item and with the whole chart: the streams are the same, and items are
// reused across targets.
func TestItemsEqualWholeChart(t *testing.T) {
	f, c := smallBenchFleet(t)
	if c.items == nil {
		t.Fatal("the built-in chart does not render item by item")
	}
	r := &Renderer{Fleet: f, Chart: c}
	// Without and with a name prefix (config.yaml's render.namePrefix).
	for _, prefix := range []string{"", "{{ .Values.cluster.region }}-"} {
		for _, tg := range r.Targets() {
			vals, err := f.TargetValues(tg.ClusterType, tg.Node)
			if err != nil {
				t.Fatal(err)
			}
			v := goValues(vals, c.shared)
			got, ok := c.passOneItems(v, "r", prefix, &guard{}, testBudget())
			if !ok {
				t.Fatalf("%s: not rendered item by item", tg.ID())
			}
			out, err := c.render(v, "r", prefix, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if want := joinManifests(out); got != want {
				t.Fatalf("%s: item by item:\n%s\nwhole chart:\n%s", tg.ID(), got, want)
			}
		}
	}
	n := c.items.m.Len()
	if items := 2 * len(r.Targets()) * benchfleet.DefaultSpec().Components; n >= items {
		t.Errorf("%d item texts remembered for %d items rendered: none reused", n, items)
	}
}

// TestItemsRootOnlyInProject keeps items.go's assumption true: the built-in
// templates use the whole values ($) only in an application's project.
func TestItemsRootOnlyInProject(t *testing.T) {
	root := regexp.MustCompile(`\$[^A-Za-z_]`)
	for _, name := range []string{"applications.yaml", "applicationsets.yaml", "_metadata.tpl"} {
		data, err := builtin.ReadFile("chart/templates/" + name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range root.FindAllIndex(data, -1) {
			line := string(data[lineStart(data, m[0]):m[1]])
			if !regexp.MustCompile(`tpl \$project \$.$`).MatchString(line) {
				t.Errorf("%s uses the whole values outside an application's project: %q", name, line)
			}
		}
	}
}

func lineStart(data []byte, i int) int {
	for i > 0 && data[i-1] != '\n' {
		i--
	}
	return i
}

// joinParts joins templates rendered in parts exactly as joinManifests
// joins their concatenations, wherever the parts are cut: in the line
// breaks and the "---" that are trimmed, in blank templates, anywhere.
func FuzzJoinParts(f *testing.F) {
	for _, seed := range [][3]string{
		{"---\nkind: A\n", "---\nkind: B\n", "\n"},
		{"\n\n", "-", "--\nkind: A\n"},
		{"", "", ""},
		{" \n", "\t", "\n"},
		{"\n--", "-\n", "x"},
		{"---", "\n", ""},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	f.Fuzz(func(t *testing.T, a, b, c string) {
		whole := map[string]string{"c/templates/b.yaml": a + b + c, "c/templates/a.yaml": c, "c/templates/NOTES.txt": a}
		parts := map[string][]string{"c/templates/b.yaml": {a, b, c}, "c/templates/a.yaml": {c}, "c/templates/NOTES.txt": {a}}
		if got, want := joinParts(parts), joinManifests(whole); got != want {
			t.Errorf("joinParts(%q, %q, %q) = %q, want %q", a, b, c, got, want)
		}
	})
}
