package render

import (
	"strings"
	"testing"

	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/engine"
)

// The calls tickRanges adds change nothing a template writes, nor the line
// of an error: every shape of range body (text first, an action first,
// trim markers, else, nested in if and define, in a subchart) renders as
// it did.
func TestTickRangesKeepsOutput(t *testing.T) {
	templates := map[string]string{
		"text first":      "{{ range .Values.l }}- {{ . }}\n{{ end }}",
		"action first":    "{{ range .Values.l }}{{ . }},{{ end }}",
		"trimmed":         "a:\n{{- range .Values.l }}\n  - {{ . }}\n{{- end }}\nb: {{ range $i, $v := .Values.l -}}  {{ $i }}={{ $v }} {{- end }}",
		"left trim first": "{{ range .Values.l }}   {{- . }}{{ end }}",
		"else":            "{{ range .Values.none }}x{{ else }}empty{{ end }}",
		"nested":          "{{ if .Values.l }}{{ range .Values.l }}{{ range until 2 }}{{ . }}{{ end }};{{ end }}{{ end }}",
		"define":          `{{ define "d" }}{{ range . }}<{{ . }}>{{ end }}{{ end }}{{ include "d" .Values.l }}`,
		"comment first":   "{{ range .Values.l }}{{/* c */}}{{ . }}{{ end }}",
		"control first":   "{{ range .Values.l }}{{ if eq . \"b\" }}B{{ end }}{{ with . }}({{ . }}){{ end }}{{ end }}",
		"range over int":  "{{ range 3 }}.{{ end }}",
		"no range":        "plain {{ .Values.l }}",
	}
	vals := common.Values{"Values": map[string]any{"l": []any{"a", "b", "c"}}, "Release": map[string]any{"Name": "r"}}
	for name, text := range templates {
		t.Run(name, func(t *testing.T) {
			sub := &chart.Chart{Metadata: &chart.Metadata{APIVersion: "v2", Name: "sub", Version: "1.0.0"},
				Templates: []*common.File{{Name: "templates/s.yaml", Data: []byte(text)}}}
			c := &chart.Chart{Metadata: &chart.Metadata{APIVersion: "v2", Name: "c", Version: "1.0.0"},
				Templates: []*common.File{{Name: "templates/t.yaml", Data: []byte(text)}}}
			c.SetDependencies(sub)
			funcs := addStrataFuncs(nil)
			want, err := engine.Engine{CustomTemplateFuncs: funcs}.Render(c, vals)
			if err != nil {
				t.Fatal(err)
			}
			got, err := engine.Engine{CustomTemplateFuncs: funcs}.Render(tickedChart(c), vals)
			if err != nil {
				t.Fatal(err)
			}
			for k, w := range want {
				if got[k] != w {
					t.Errorf("%s: %q, want %q", k, got[k], w)
				}
			}
			if string(c.Templates[0].Data) != text || c.Dependencies()[0].Parent() != c {
				t.Errorf("the chart itself changed")
			}
			if strings.Contains(text, "range") && !strings.Contains(string(tickedChart(c).Templates[0].Data), rangeTextFunc) {
				t.Errorf("no call added to %q", text)
			}
		})
	}
}
