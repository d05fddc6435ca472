package render

import (
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/values"
)

// directValues are the values of TestDirectAsTheEngine's cases.
const directValues = `x: us-east1
on: on
a: {b: c, n: 1, nul: null, list: [d]}
n: 1
f: 1.5
t: true
nul: null
novalue: a<no value>b
empty: ""
`

// TestDirectAsTheEngine evaluates pass-2 actions without the engine where
// direct.go can, and checks each result against Helm's engine rendering
// the same actions with the same values.
func TestDirectAsTheEngine(t *testing.T) {
	for _, tc := range []struct {
		actions string
		direct  bool
		strict  bool // missing keys are errors
	}{
		{"{{ .Values.x }}", true, false},
		{"{{ $.Values.x }}", true, false},
		{"{{.Values.x}}", true, false},
		{"  {{- .Values.x -}}  ", true, false},
		{"{{ .Values.a.b }}", true, false},
		{"{{ .Values.on }}", false, false}, // a boolean, as Helm reads YAML 1.1
		{"{{ .Values.empty }}", true, false},
		{"{{ `{{ .name }}` }}", true, false},
		{`{{ "a\"b\t" }}`, true, false},
		{"{{ .Values.x }}{{ .Values.a.b }}{{ `{{.server}}` }}", true, false},
		{"{{ .Values.missing }}", false, false},
		{"{{ .Values.a.missing }}", false, false},
		{"{{ .Values.missing.b }}", false, false},
		{"{{ .Values.x.b }}", false, false},
		{"{{ .Values.a.list }}", false, false},
		{"{{ .Values.n }}", false, false},
		{"{{ .Values.f }}", false, false},
		{"{{ .Values.t }}", false, false},
		{"{{ .Values.nul }}", false, false},
		{"{{ .Values.a.nul }}", false, false},
		{"{{ .Values.a }}", false, false},
		{"{{ .Values }}", false, false},
		{"{{ .Values.novalue }}", false, false},
		{`{{ "<no value>" }}`, false, false},
		{"{{ .Release.Name }}", false, false},
		{"{{ .Values.x | quote }}", false, false},
		{"{{ upper .Values.x }}", false, false},
		{"{{ $v := .Values.x }}{{ $v }}", false, false},
		{"{{ .Values.x }}{{ .Values.n }}", false, false},
		{`{{ .Values.x | default "d" }}`, true, false},
		{`{{ .Values.empty | default "d" }}`, true, false},
		{`{{ .Values.nul | default "d" }}`, true, false},
		{`{{ .Values.a.nul | default "d" }}`, true, false},
		{`{{ .Values.missing | default "d" }}`, true, false},
		{`{{ .Values.a.missing | default "d" }}`, true, false},
		{`{{ .Values.a.missing | default "d" }}`, false, true},
		{`{{ .Values.nul | default "d" }}`, true, true},
		{`{{ .Values.missing.b | default "d" }}`, false, false},
		{`{{ .Values.x.b | default "d" }}`, false, false},
		{`{{ .Values.n | default "d" }}`, false, false},
		{`{{ .Values.a | default "d" }}`, false, false},
		{`{{ .Values.missing | default "<no value>" }}`, false, false},
		{`{{ .Values.missing | default .Values.x }}`, false, false},
		{`{{ .Values.missing | required "d" }}`, false, false},
		{`{{ default "d" .Values.missing }}`, false, false},
		{`{{ .Values.x | default "d" | quote }}`, false, false},
		{`{{ "c" | default "d" }}`, false, false},
	} {
		t.Run(tc.actions, func(t *testing.T) {
			vals, err := values.Decode("values.yaml", []byte(directValues))
			if err != nil {
				t.Fatal(err)
			}
			spans := actionSpans(tc.actions)
			nodes := straightLine(tc.actions, spans)
			if nodes == nil {
				t.Fatalf("%q is not straight-line template code", tc.actions)
			}
			var actions []string
			for _, s := range spans {
				actions = append(actions, tc.actions[s[0]:s[1]])
			}
			p := &docPlan{ok: true, actions: actions, direct: directActions(nodes)}
			got, direct := directResults([]*docPlan{nil, p}, len(actions), vals, tc.strict)
			if direct != tc.direct {
				t.Errorf("evaluated without the engine: %v, want %v", direct, tc.direct)
			}
			out, err := renderText(strings.Join(actions, actionSep), vals, "r", true, tc.strict, testBudget())
			if !direct {
				return
			}
			if err != nil {
				t.Fatalf("the engine fails (%v); direct.go gives %q", err, got)
			}
			if want := strings.Split(out, actionSep); strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("direct.go gives %q, the engine %q", got, want)
			}
		})
	}
}

// TestAllKeysFoundAsTheEngine checks missing.go's shortcut: a text it
// passes over must be one that Helm's engine, strictly, renders without a
// missing-key error; and it passes over the plain references that find
// their keys.
func TestAllKeysFoundAsTheEngine(t *testing.T) {
	vals, err := values.Decode("values.yaml", []byte(directValues))
	if err != nil {
		t.Fatal(err)
	}
	v := goValues(vals, true)
	for _, tc := range []struct {
		text  string
		found bool
	}{
		{"https://{{ .Values.x }}.example.com", true},
		{"{{ $.Values.a.b }}-{{ .Values.x }}", true},
		{"{{ .Values.n }} {{ .Values.nul }} {{ .Values.a }}", true}, // found, whatever they print
		{`{{ .Values.a.b | default "d" }}`, true},
		{"{{`{{ .name }}`}}", true},
		{"{{ .Values.missing }}", false},
		{`{{ .Values.a.missing | default "d" }}`, false},
		{"{{ .Values.x }}{{ .Values.missing }}", false},
		{"{{ .Values.missing.b }}", false},
		{"{{ .Values.x.b }}", false},   // a string has no keys
		{"{{ .Values.nul.b }}", false}, // nor has null
		{"{{ .Values.x | upper }}", false},
		{"{{ if .Values.x }}a{{ end }}", false},
		{"{{ .Values.x", false},
		{"{{ .Release.Name }}", false},
	} {
		t.Run(tc.text, func(t *testing.T) {
			found := allKeysFound(tc.text, v)
			if found != tc.found {
				t.Errorf("allKeysFound = %v, want %v", found, tc.found)
			}
			_, err := passTwo(tc.text, vals, "r", true, true, testBudget())
			if found && err != nil && missingKeyRE.MatchString(templateMessage(err)) {
				t.Errorf("passed over, but the engine finds a missing key: %v", err)
			}
		})
	}
}
