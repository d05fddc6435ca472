package render

import (
	"strings"
	"testing"
	"testing/fstest"
)

// literalText gives Helm's engine's text whenever it answers, and declines
// every template it cannot read as text and raw string literals alone.
func TestLiteralTextIsHelms(t *testing.T) {
	for _, tc := range []struct {
		text string
		ok   bool
	}{
		{"name: x\n", true},
		{"name: '{{`{{ .path.basename }}`}}'\n", true},
		{"a: {{`{{`}}{{`}}`}} b: '{{`x`}}-{{`y`}}'\n", true},
		{"path: argocd/config/{{`{{ .metadata.labels.cluster_type }}`}}/*\n", true},
		{"a: }} {{`}}`}}\n", true},
		{"a: {{`<no value>`}}\n", false},
		{"a: {{ `x` }}\n", false},
		{"a: {{- `x` }}\n", false},
		{"a: {{ .Values.x }}\n", false},
		{"a: {{/* c */}}\n", false},
		{"a: {{`x`}\n", false},
		{"a: {{`x\n", false},
		{"a: {{\"x\"}}\n", false},
	} {
		got, ok := literalText(tc.text)
		if ok != tc.ok {
			t.Errorf("literalText(%q): ok %v, want %v", tc.text, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		dir := "out/t"
		files := []File{
			{Path: dir + "/Chart.yaml", Data: []byte("apiVersion: v2\nname: t\nversion: 0.1.0\n")},
			{Path: dir + "/values.yaml", Data: []byte("x: 1\n")},
			{Path: dir + "/templates/r.yaml", Data: []byte(tc.text)},
		}
		helm, err := RenderAsArgoCD(dir, files, nil)
		if err != nil {
			t.Fatalf("%q: %v", tc.text, err)
		}
		if want := helm["templates/r.yaml"]; got != want {
			t.Errorf("literalText(%q) = %q, Helm renders %q", tc.text, got, want)
		}
	}
}

// An action left for Argo CD's Helm render (a value escaped twice, for the
// root's values) cannot be in plain manifests: the target fails, naming
// the resource and the action.
func TestPlainManifestsRefuseArgoCDHelmActions(t *testing.T) {
	fsys := fstest.MapFS{
		"config/config.yaml":       {Data: []byte("dimensions: [environments]\ncluster_types: [hub]\nsequence: {environments: [prod]}\nlayout: {path: 'out/{environment}/{clusterType}', manifests: apps.yaml}\n")},
		"config/hub/defaults.yaml": {Data: []byte("applications: {default: {project: default, destination: {name: in-cluster}}}\n")},
		"config/hub/a/values.yaml": {Data: []byte("applications:\n  podinfo:\n    source: {repoURL: https://example.com/charts, chart: podinfo, targetRevision: 1.0.0}\n    destination: {name: '{{`{{ .Values.cluster.name }}`}}', namespace: podinfo}\n")},
	}
	r, err := Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Render(r.Targets()[0])
	if err == nil || !strings.Contains(err.Error(), "resource podinfo holds {{ .Values.cluster.name }}, an action for Argo CD's Helm render") {
		t.Fatalf("rendering: %v, want the action named", err)
	}
}

// TestPlainLine: the line of a plain file at which a template's line 1
// stands, its escapes removed and leading blank lines counted; 0 for a
// template whose text the file does not hold.
func TestPlainLine(t *testing.T) {
	plain := File{Path: "t/apps.yaml", Data: []byte(plainHeader + "kind: A\nname: a\n---\nkind: B\nname: \"{{ .b }}\"\n")}
	for _, tc := range []struct {
		name, tmpl string
		want       int
	}{
		{"the first", "kind: A\nname: a\n", 2},
		{"after a separator, an escape removed", "kind: B\nname: \"{{`{{ .b }}`}}\"\n", 5},
		{"leading blank lines", "\n\nkind: B\nname: \"{{`{{ .b }}`}}\"\n", 3},
		{"not in the file", "kind: C\n", 0},
		{"an action for Argo CD's render", "kind: B\nname: {{ .Values.b }}\n", 0},
	} {
		if got := PlainLine(plain, File{Path: "t/templates/x.yaml", Data: []byte(tc.tmpl)}); got != tc.want {
			t.Errorf("%s: PlainLine = %d, want %d", tc.name, got, tc.want)
		}
	}
}
