package render

import (
	"fmt"
	"path"
	"strings"
	"text/template"

	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/engine"

	"github.com/strata-fleet/strata/internal/values"
)

// Under render.missingKeys: error, a value's reference to a key the values
// do not have is an error wherever the value is rendered: in pass 2
// (missing.go), and in pass 1, where a chart runs tpl on it (the built-in
// chart's tpl $project $, or a repository chart's own tpl). Helm's tpl is
// exactly as strict as the whole engine, and a chart's own templates rely
// on a missing key rendering empty, so pass 1 keeps Helm's lenient engine
// and replaces tpl alone by strictTpl.tpl. It renders the text through
// Helm's engine, strictly, as a template of its own that sees the chart's
// partials (their defines, for include) and gets tpl's data as its root ($
// and .), which is what Helm's tpl does. A reference to a missing key is
// recorded with the text, and the text then renders leniently, so that the
// render goes on and every such reference of a target is reported, each at
// the value that holds the text. Under missingKeys: ignore, none of this
// runs: Helm's own tpl renders, as in the reference.

// tplTextName is the template that holds tpl's text in strictTpl's chart;
// tplMainName includes it with tpl's data.
const (
	tplTextName = "templates/_strata-tpl-text.tpl"
	tplMainName = "templates/strata-tpl.yaml"
)

// strictTpl is the tpl of one strict pass-1 render.
type strictTpl struct {
	c *Chart
	// funcs are the render's template functions, this tpl included, which
	// nested renders get too.
	funcs   template.FuncMap
	missing []tplMissing
	// texts are the texts of the tpl calls under way, outermost first.
	texts []string
}

// tplMissing is a reference to a missing key in a text given to tpl: text
// is the outermost tpl's, which a value may hold when the reference is in
// a nested tpl's.
type tplMissing struct {
	text, expr, key string
}

// withFuncs returns the functions of a render: funcs (nil for Helm's own)
// and, when the render is strict (s is not nil), s's tpl.
func (s *strictTpl) withFuncs(funcs template.FuncMap) template.FuncMap {
	if s == nil {
		return funcs
	}
	s.funcs = make(template.FuncMap, len(funcs)+1)
	for k, f := range funcs {
		s.funcs[k] = f
	}
	s.funcs["tpl"] = s.tpl
	return s.funcs
}

func (s *strictTpl) tpl(text string, data any) (string, error) {
	s.texts = append(s.texts, text)
	defer func() { s.texts = s.texts[:len(s.texts)-1] }()
	out, err := s.run(text, data, true)
	if err == nil {
		return out, nil
	}
	m := missingKeyRE.FindStringSubmatch(templateMessage(err))
	if m == nil {
		return "", err
	}
	s.missing = append(s.missing, tplMissing{text: s.texts[0], expr: m[1], key: m[2]})
	return s.run(text, data, false)
}

// run renders text with data as its root, as Helm's tpl does.
func (s *strictTpl) run(text string, data any, strict bool) (string, error) {
	meta := s.c.chart.Metadata
	ch := &chart.Chart{Metadata: meta}
	for _, t := range s.c.chart.Templates {
		if strings.HasPrefix(path.Base(t.Name), "_") {
			ch.Templates = append(ch.Templates, t)
		}
	}
	ch.Templates = append(ch.Templates,
		&common.File{Name: tplTextName, Data: []byte(text)},
		&common.File{Name: tplMainName, Data: []byte(`{{- include "` + meta.Name + "/" + tplTextName + `" .Values -}}`)})
	out, err := engine.Engine{CustomTemplateFuncs: s.funcs, Strict: strict}.Render(ch, common.Values{"Values": data})
	if err != nil {
		return "", err
	}
	return out[meta.Name+"/"+tplMainName], nil
}

// errors returns an error for every reference to a missing key recorded,
// at the value of vals that holds the text (or, for a text no value holds,
// one the chart made, without position), once per value.
func (s *strictTpl) errors(vals *values.Value) []error {
	var errs []error
	seen := map[string]bool{}
	for _, m := range s.missing {
		found := false
		walkStrings(vals, func(path []string, v *values.Value) {
			if v.Text != m.text {
				return
			}
			found = true
			if id := v.Pos.String() + "\x00" + m.key; !seen[id] {
				seen[id] = true
				// A reference guarded as Helm users write optional
				// values is none (guarded.go).
				unguarded, ok := unguardedErrors(v, path, vals, m.expr)
				if !ok {
					unguarded = []error{missingKeyError(v.Pos, path, m.expr, m.key)}
				}
				errs = append(errs, unguarded...)
			}
		})
		if id := m.text + "\x00" + m.key; !found && !seen[id] {
			seen[id] = true
			errs = append(errs, fmt.Errorf("the templates chart runs tpl on %q, which refers to a key the values do not have: %s (%q)", m.text, m.expr, m.key))
		}
	}
	return errs
}
