package render

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/testing/benchfleet"
	"github.com/strata-fleet/strata/internal/values"
)

// holeCases are pass-1 documents rendered with .Values.x set to x. fast
// says whether the documents must take the hole path; either way its
// output must be the general path's.
var holeCases = []struct {
	name, doc, x string
	fast         bool
}{
	{"single-quoted", "kind: A\nmetadata:\n  name: a\nspec:\n  region: '{{ .Values.x }}'\n", "us-east1", true},
	{"single-quoted number stays a string", "metadata:\n  name: a\nport: '{{ .Values.x }}'\n", "8080", true},
	{"single-quoted empty", "metadata:\n  name: a\nv: '{{ .Values.x }}'\n", "", true},
	{"single-quoted with a quote", "metadata:\n  name: a\nv: '{{ .Values.x }}'\n", "it's", false},
	{"double-quoted", "metadata:\n  name: a\nv: \"pre-{{ .Values.x }}\"\n", "b c", true},
	{"double-quoted with a backslash", "metadata:\n  name: a\nv: \"{{ .Values.x }}\"\n", `a\nb`, false},
	{"plain inside text", "metadata:\n  name: a\nv: app-{{ .Values.x }}-x\n", "1", true},
	{"plain number", "metadata:\n  name: a\nport: {{ .Values.x }}\n", "8080", true},
	{"plain boolean 1.1", "metadata:\n  name: a\nv: {{ .Values.x }}\n", "on", true},
	{"plain float", "metadata:\n  name: a\nv: {{ .Values.x }}\n", "1e3", true},
	{"plain empty is null", "metadata:\n  name: a\nv: {{ .Values.x }}\n", "", true},
	{"plain that is a mapping", "metadata:\n  name: a\nv: {{ .Values.x }}\n", "b: c", false},
	{"plain comment", "metadata:\n  name: a\nv: x {{ .Values.x }}\n", "#c", false},
	{"plain sequence", "metadata:\n  name: a\nv: {{ .Values.x }}\n", "- a", false},
	{"plain flow", "metadata:\n  name: a\nv: {{ .Values.x }}\n", "[a]", false},
	{"plain URL", "metadata:\n  name: a\nv: {{ .Values.x }}\n", "https://example.com:443/x", true},
	{"name from a value", "metadata:\n  name: '{{ .Values.x }}'\n", "from-value", true},
	{"name a number", "metadata:\n  name: {{ .Values.x }}\n", "42", true},
	{"literal block", "metadata:\n  name: a\nscript: |\n  echo {{ .Values.x }}\n  done\n", "hi", true},
	{"literal block, line break", "metadata:\n  name: a\nscript: |\n  echo {{ .Values.x }}\n", "a\nb", false},
	{"action folded over two lines", "metadata:\n  name: a\nv: '{{ .Values.x | default \"y\"\n  }}'\n", "", true},
	{"result folded over two lines", "metadata:\n  name: a\nv: '{{ .Values.x }}'\n", "a\n    b", true},
	{"result with an empty line", "metadata:\n  name: a\nv: '{{ .Values.x }}'\n", "a\n\n  b", false},
	{"escaped for Argo CD", "metadata:\n  name: a\nv: '{{`{{ .name }}`}}'\n", "", true},
	{"trim markers", "metadata:\n  name: a\nv: x-{{- .Values.x -}}-y\n", "1", true},
	{"variables", "metadata:\n  name: a\nv: '{{ $v := .Values.x }}{{ $v }}'\n", "b", true},
	{"control structure", "metadata:\n  name: a\n{{- if .Values.x }}\nv: b\n{{- end }}\n", "1", false},
	{"comment action", "metadata:\n  name: a\nv: b{{/* c */}}\n", "", false},
	{"in a key", "metadata:\n  name: a\n{{ .Values.x }}: v\n", "k", false},
	{"in a comment", "metadata:\n  name: a\n# {{ .Values.x }}\nv: 1\n", "k", false},
	{"in a flow collection", "metadata:\n  name: a\nv: [a-{{ .Values.x }}]\n", "b", false},
	{"tagged", "metadata:\n  name: a\nv: !!str a{{ .Values.x }}\n", "b", false},
	{"no value", "metadata:\n  name: a\nv: <no value>-{{ .Values.x }}\n", "b", false},
	{"aliased", "metadata:\n  name: a\nv: &r a-{{ .Values.x }}\nw: *r\n", "b", false},
	{"merge key", "metadata:\n  name: a\nbase: &b {v: 1}\nm:\n  <<: *b\n  w: a-{{ .Values.x }}\n", "b", true},
	{"template error", "metadata:\n  name: a\nv: '{{ fail \"no\" }}'\n", "", false},
	{"missing name", "spec:\n  v: '{{ .Values.x }}'\n", "b", true},
	{"application set as toYaml folds it", "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: \"infra\"\n" +
		"spec:\n  goTemplate: true\n  generators:\n  - clusters:\n      selector:\n        matchLabels:\n" +
		"          region: '{{ .Values.x }}'\n  template:\n    metadata:\n      name: '{{`{{.name}}`}}-infra'\n" +
		"    spec:\n      project: '{{`{{\"{{\"}} index .metadata.annotations \"fleet.example.com/project-id\"\n" +
		"        {{\"}}\"}}`}}'\n      destination:\n        server: '{{`{{.server}}`}}'\n", "us-east1", true},
}

func holeVals(x string) *values.Value {
	v := values.NewMap(values.Pos{File: "values.yaml", Line: 1, Col: 1})
	v.Set("x", values.NewString(x, values.Pos{File: "values.yaml", Line: 1, Col: 4}))
	return v
}

// checkHoles renders doc both ways and fails when the hole path's result,
// when it gives one, differs from the general path's. It returns whether
// the hole path gave one.
func checkHoles(t *testing.T, doc, x string) bool {
	t.Helper()
	r := &Renderer{Chart: &Chart{Source: "test"}}
	manifest := "---\n# Source: t/templates/a.yaml\n" + doc
	vals := holeVals(x)
	fast, ok := r.passTwoHoles("t", manifest, vals, "r", testBudget())
	general, err := r.passTwoGeneral("t", manifest, vals, "r", testBudget())
	if !ok {
		return false
	}
	if err != nil {
		if badDoc(fast) < 0 {
			t.Fatalf("the general path fails (%v), the hole path gives:\n%s", err, docsText(fast))
		}
		return true
	}
	if got, want := docsText(fast), docsText(general); got != want {
		t.Fatalf("doc %q with x=%q:\nhole path:\n%s\ngeneral path:\n%s", doc, x, got, want)
	}
	return true
}

// docsText shows documents in name order: the general path puts the
// documents without actions first.
func docsText(docs []renderedDoc) string {
	var texts []string
	for _, d := range docs {
		texts = append(texts, "# name "+d.name+" ("+d.nameKind.String()+")\n"+string(d.data))
	}
	slices.Sort(texts)
	return strings.Join(texts, "")
}

func TestHolesEqualGeneralPath(t *testing.T) {
	for _, tc := range holeCases {
		t.Run(tc.name, func(t *testing.T) {
			if fast := checkHoles(t, tc.doc, tc.x); fast != tc.fast {
				t.Errorf("hole path taken: %v, want %v", fast, tc.fast)
			}
		})
	}
}

// FuzzHoles checks that the hole path, whenever it gives a result, gives
// the general path's.
func FuzzHoles(f *testing.F) {
	for _, tc := range holeCases {
		f.Add(tc.doc, tc.x)
	}
	f.Fuzz(func(t *testing.T, doc, x string) {
		if len(doc) > 4096 || strings.Contains(doc, "range") || strings.Contains(doc, "&") {
			t.Skip("slow to render either way (loops, alias expansion): nothing to compare")
		}
		checkHoles(t, doc, x)
	})
}

// TestHolesOnBenchFleet renders a small bench fleet with and without the
// hole path: the outputs are the same, the hole path serves every target,
// and it does so without Helm's engine (direct.go).
func TestHolesOnBenchFleet(t *testing.T) {
	f, chart := smallBenchFleet(t)
	fast := &Renderer{Fleet: f, Chart: chart}
	general := &Renderer{Fleet: f, Chart: chart}
	for _, tg := range fast.Targets() {
		vals, err := f.TargetValues(tg.ClusterType, tg.Node)
		if err != nil {
			t.Fatal(err)
		}
		manifest, err := chart.passOne(vals, "r", "", true, false, testBudget())
		if err != nil {
			t.Fatal(err)
		}
		got, ok := fast.passTwoHoles("t", manifest, vals, "r-final", testBudget())
		if !ok {
			t.Fatalf("%s: the hole path does not serve this target", tg.ID())
		}
		var plans []*docPlan
		n := 0
		for _, part := range splitDocuments(manifest) {
			if strings.Contains(part, "{{") {
				if !values.DecodesDirectly(withHoles(part, actionSpans(part))) {
					t.Errorf("%s: a first-pass document is left to yaml.v3:\n%s", tg.ID(), part)
				}
				p := fast.plans.get("t", part)
				plans, n = append(plans, p), n+len(p.actions)
			}
		}
		if _, direct := directResults(plans, n, vals, false); !direct {
			t.Errorf("%s: pass 2 needs Helm's engine", tg.ID())
		}
		want, err := general.passTwoGeneral("t", manifest, vals, "r-final", testBudget())
		if err != nil {
			t.Fatal(err)
		}
		if docsText(got) != docsText(want) {
			t.Fatalf("%s: the hole path gives\n%s\nthe general path\n%s", tg.ID(), docsText(got), docsText(want))
		}
	}
}

// smallBenchFleet loads a bench fleet of 2 x 2 x 3 targets and its chart.
func smallBenchFleet(t *testing.T) (*fleet.Fleet, *Chart) {
	t.Helper()
	spec := benchfleet.DefaultSpec()
	spec.Sectors, spec.Regions = 2, 3
	dir := t.TempDir()
	if err := benchfleet.Write(dir, spec); err != nil {
		t.Fatal(err)
	}
	fsys := os.DirFS(dir)
	f, err := fleet.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	chart, err := LoadChart(fsys)
	if err != nil {
		t.Fatal(err)
	}
	return f, chart
}
