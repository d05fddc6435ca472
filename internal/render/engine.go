package render

import (
	"errors"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/template"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/engine"

	"github.com/strata-fleet/strata/internal/values"
)

// renderValues builds the top-level object Helm hands to templates, as
// `helm template RELEASE CHART --values FILE` does.
func renderValues(c *chart.Chart, meta map[string]any, plain bool, v map[string]any, release string) (common.Values, error) {
	opts := common.ReleaseOptions{Name: release, Namespace: "default", Revision: 1, IsInstall: true}
	if !plain {
		return util.ToRenderValues(c, v, opts, common.DefaultCapabilities)
	}
	// A chart without values or dependencies coalesces to a copy of v, which
	// Interface has just made: skip Helm's reflective deep copy.
	return common.Values{
		"Chart":        meta,
		"Capabilities": common.DefaultCapabilities,
		"Release": map[string]any{
			"Name": opts.Name, "Namespace": opts.Namespace, "IsUpgrade": false,
			"IsInstall": true, "Revision": 1, "Service": "Helm",
		},
		"Values": v,
	}, nil
}

// goValues converts values to what templates see: shared objects, which
// templates must not modify (guard.go), or a fresh copy.
func goValues(vals *values.Value, shared bool) map[string]any {
	var v map[string]any
	if shared {
		v, _ = vals.Shared().(map[string]any)
	} else {
		v, _ = vals.Interface().(map[string]any)
	}
	if v == nil {
		v = map[string]any{}
	}
	return v
}

// passOne renders the templates chart and joins its manifests into one
// stream, as `helm template` prints them. With shortcuts, it renders on
// shared values (and item by item, for the built-in chart) unless a
// template modifies them. When strict, tpl is strict (stricttpl.go), and
// the references to missing keys it finds are the errors, at their values.
// prefix is config.yaml's render.namePrefix (the built-in chart's
// strataNamePrefix).
func (c *Chart) passOne(vals *values.Value, release, prefix string, shortcuts, strict bool, b *budget) (string, error) {
	var st *strictTpl
	if strict {
		st = &strictTpl{c: c}
	}
	manifest, err := c.passOneWith(vals, release, prefix, shortcuts, st, b)
	if err != nil {
		return "", err
	}
	if st != nil && len(st.missing) > 0 {
		// nil when every reference to a missing key is guarded: the
		// manifest has them as Helm renders them without strict keys.
		if err := errors.Join(st.errors(vals)...); err != nil {
			return "", err
		}
	}
	return manifest, nil
}

func (c *Chart) passOneWith(vals *values.Value, release, prefix string, shortcuts bool, st *strictTpl, b *budget) (string, error) {
	if shortcuts && c.shared && !c.fresh.Load() {
		g := &guard{tpl: st}
		v := goValues(vals, true)
		if c.items != nil {
			if manifest, ok := c.passOneItems(v, release, prefix, g, b); ok {
				return manifest, nil
			}
		}
		if !g.mutated {
			out, err := c.render(v, release, prefix, g.funcs(b), b)
			if !g.mutated {
				if err != nil {
					return "", err
				}
				return joinManifests(out), nil
			}
		}
		c.fresh.Store(true)
	}
	out, err := c.render(goValues(vals, false), release, prefix, st.withFuncs(b.funcs()), b)
	if err != nil {
		return "", err
	}
	return joinManifests(out), nil
}

// render runs Helm's engine on the chart, with funcs replacing Helm's
// template functions, and strataNamePrefix returning prefix, under b when
// it is not nil.
func (c *Chart) render(v map[string]any, release, prefix string, funcs template.FuncMap, b *budget) (map[string]string, error) {
	return c.renderTemplates(c.chart, v, release, prefix, funcs, b)
}

// renderTemplates is render with ch, which is c's chart or the same chart
// with fewer templates (items.go).
func (c *Chart) renderTemplates(ch *chart.Chart, v map[string]any, release, prefix string, funcs template.FuncMap, b *budget) (map[string]string, error) {
	rv, err := renderValues(ch, c.meta, c.plain, v, release)
	if err != nil {
		return nil, err
	}
	funcs = addStrataFuncs(funcs)
	funcs["strataNamePrefix"] = func() string { return prefix }
	out, err := engine.Engine{CustomTemplateFuncs: funcs}.Render(tickedChart(ch), rv)
	b.caused(err)
	return out, err
}

// joinManifests joins the rendered templates of a chart into one stream,
// as `helm template` prints them.
func joinManifests(out map[string]string) string {
	parts := make(map[string][]string, len(out))
	for name, body := range out {
		parts[name] = []string{body}
	}
	return joinParts(parts)
}

// joinParts is joinManifests of templates that each rendered to the
// concatenation of its parts (which it may change), without concatenating
// them first.
func joinParts(out map[string][]string) string {
	names := make([]string, 0, len(out))
	for name := range out {
		if strings.HasSuffix(name, "NOTES.txt") {
			continue
		}
		names = append(names, name)
	}
	sort.Strings(names)
	kept := names[:0]
	bodies := make([][]string, 0, len(names)) // of kept
	size := 0
	for _, name := range names {
		body := out[name]
		if !slices.ContainsFunc(body, func(part string) bool { return strings.TrimSpace(part) != "" }) {
			continue
		}
		body = trimStart(body)
		kept, bodies = append(kept, name), append(bodies, body)
		size += len("---\n# Source: \n\n") + len(name)
		for _, part := range body {
			size += len(part)
		}
	}
	var b strings.Builder
	b.Grow(size)
	for i, name := range kept {
		b.WriteString("---\n# Source: ")
		b.WriteString(name)
		b.WriteString("\n")
		for _, part := range bodies[i] {
			b.WriteString(part)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// trimStart returns parts, which it may change, without the line breaks
// their concatenation starts with and a "---\n" after them (as
// joinManifests trims a template's text).
func trimStart(parts []string) []string {
	for len(parts) > 0 {
		first := strings.TrimLeft(parts[0], "\n")
		switch {
		case first == "":
			parts = parts[1:]
			continue
		case len(first) < len("---\n") && len(parts) > 1: // the marker may run into the next part
			return []string{strings.TrimPrefix(strings.TrimLeft(strings.Join(parts, ""), "\n"), "---\n")}
		}
		parts[0] = strings.TrimPrefix(first, "---\n")
		return parts
	}
	return parts
}

// passTwo renders pass 1's output as a template with the same values.
// Documents without template actions render to themselves, so only the
// others go through the engine (together, as one template, as in the
// reference); the result holds the same documents.
func passTwo(manifest string, vals *values.Value, release string, shared, strict bool, b *budget) (string, error) {
	var static, dynamic strings.Builder
	for _, doc := range splitDocuments(manifest) {
		if strings.Contains(doc, "{{") {
			dynamic.WriteString("---\n")
			dynamic.WriteString(doc)
		} else {
			static.WriteString("---\n")
			static.WriteString(strings.ReplaceAll(doc, "<no value>", ""))
		}
	}
	if dynamic.Len() == 0 {
		return static.String(), nil
	}
	out, err := renderText(dynamic.String(), vals, release, shared, strict, b)
	if err != nil {
		return "", err
	}
	return static.String() + "---\n" + out, nil
}

// renderText renders text as the one template of pass 2's chart with the
// values, through Helm's engine: on shared values when shared, unless the
// template modifies them (guard.go). When strict, a reference to a key the
// values do not have is an error (missingKeyErrors says where).
func renderText(text string, vals *values.Value, release string, shared, strict bool, b *budget) (string, error) {
	if shared {
		g := &guard{}
		out, err := renderTextOn(text, goValues(vals, true), release, g.funcs(b), strict, b)
		if !g.mutated {
			return out, err
		}
	}
	return renderTextOn(text, goValues(vals, false), release, b.funcs(), strict, b)
}

func renderTextOn(text string, v map[string]any, release string, funcs template.FuncMap, strict bool, b *budget) (string, error) {
	c := passTwoChart(text)
	rv, err := renderValues(c, metadataMap(c.Metadata), true, v, release)
	if err != nil {
		return "", err
	}
	out, err := engine.Engine{CustomTemplateFuncs: addStrataFuncs(funcs), Strict: strict}.Render(c, rv)
	if err != nil {
		b.caused(err)
		return "", err
	}
	// Helm drops "<no value>" (a null) only when not strict: do as it does
	// when not strict, so that both ways give the same text.
	return strings.ReplaceAll(out["temp-chart/templates/apps.yaml"], "<no value>", ""), nil
}

// expressionError finds the string in vals whose template expression fails
// on its own, so that a pass 2 error can name the file and line that holds
// it. It returns nil when no single value fails.
func expressionError(vals *values.Value, release string, b *budget) error {
	var found error
	var walk func(path []string, v *values.Value) bool
	walk = func(path []string, v *values.Value) bool {
		switch v.Kind {
		case values.Map:
			for i, k := range v.Keys {
				if walk(append(path[:len(path):len(path)], k), v.Vals[i]) {
					return true
				}
			}
		case values.List:
			for i, it := range v.Items {
				if walk(append(path[:len(path):len(path)], strconv.Itoa(i)), it) {
					return true
				}
			}
		case values.String:
			if !strings.Contains(v.Text, "{{") {
				return false
			}
			if _, err := passTwo(v.Text, vals, release, true, false, b); err != nil {
				found = &values.Error{Pos: v.Pos, Path: path, Msg: "template error in value: " + templateMessage(err),
					Hint: "values are rendered as templates against .Values; escape what Argo CD should see as {{`{{ ... }}`}}"}
				return true
			}
		}
		return false
	}
	walk(nil, vals)
	return found
}

// templateMessage reduces an error of Helm's engine on pass 2's one
// template to what went wrong, without the temporary chart's name and
// positions, which mean nothing to the user.
func templateMessage(err error) string {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	msg = templateRefRE.ReplaceAllString(msg, "")
	return strings.Replace(msg, `executing "temp-chart/templates/apps.yaml" at `, "at ", 1)
}

// templateRefRE matches how Helm's errors locate a problem in pass 2's
// template: "parse error at (temp-chart/templates/apps.yaml:1): ",
// "execution error at (...:1:3): ", "temp-chart/templates/apps.yaml:1:10 ".
var templateRefRE = regexp.MustCompile(`^(?:(?:parse|execution) error at \([^)]*\): |temp-chart/templates/apps\.yaml(?::\d+)* )`)
