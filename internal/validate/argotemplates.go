package validate

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/strata-fleet/strata/internal/render"
)

// The rules of the escaping check: expressions meant for Argo CD's own
// templating (an ApplicationSet's template) that reach it with one level of
// escaping too few (render/argocd.go explains the levels).
const (
	// RuleArgoCDUnescaped: rendered/ holds {{ .name }}: Argo CD's Helm
	// render of rendered/ evaluates it against its own values (to
	// nothing) before the ApplicationSet controller sees it. An error.
	RuleArgoCDUnescaped = "argocd-expression-unescaped"
	// RuleArgoCDLost: an ApplicationSet's template names every Application
	// it generates the same: no expression left in template.metadata.name,
	// as when strata's own render consumed it. A warning (a generator of
	// one element may mean it).
	RuleArgoCDLost = "argocd-expression-lost"
)

// CheckEscaping: expressions for Argo CD's templating escaped too few times.
const CheckEscaping = "escaping"

// argocdHint names the template function that escapes for Argo CD.
const argocdHint = `write expressions for Argo CD's templating with the template function argocd: {{ argocd ".name" }}`

// helmAction finds the template actions Argo CD's Helm sees in a rendered
// string; helmRoots are the fields of the data Helm renders with.
var (
	helmAction = regexp.MustCompile(`\{\{-?\s*(.*?)\s*-?\}\}`)
	dotField   = regexp.MustCompile(`(?:^|[\s(|,])\.([A-Za-z_][A-Za-z0-9_]*)`)
	helmRoots  = map[string]bool{"Values": true, "Release": true, "Chart": true, "Capabilities": true, "Template": true, "Files": true, "Subcharts": true}
)

// escaping checks the strings of a rendered Application or ApplicationSet
// for expressions of Argo CD's templating that Argo CD's Helm would
// evaluate, and an ApplicationSet's template for a name without one.
func (v *validator) escaping(out *render.Output, r *rendered) []Finding {
	if r.kind != "Application" && r.kind != "ApplicationSet" {
		return nil
	}
	var findings []Finding
	add := func(sev Severity, rule, path, msg string) {
		fd := Finding{Severity: sev, Check: CheckEscaping, Rule: rule, File: r.file, Path: path, Message: msg}
		v.locate(&fd, out, r)
		findings = append(findings, fd)
	}
	walkRendered("", r.obj, func(path, s string) {
		if expr := unescapedExpr(s); expr != "" {
			add(Error, RuleArgoCDUnescaped, path, fmt.Sprintf(
				"%s reaches Argo CD's Helm render of rendered/, which evaluates it against its own values (to nothing) before Argo CD's templating sees it: it is escaped one level too few; %s",
				expr, argocdHint))
		}
	})
	if r.kind == "ApplicationSet" {
		spec, _ := r.obj["spec"].(map[string]any)
		tmpl, _ := spec["template"].(map[string]any)
		md, _ := tmpl["metadata"].(map[string]any)
		if name, ok := md["name"].(string); ok && !strings.Contains(name, "{{") && spec["generators"] != nil {
			add(Warning, RuleArgoCDLost, "spec.template.metadata.name", fmt.Sprintf(
				"every Application the ApplicationSet generates is named %q: the name has no expression of Argo CD's templating (one left unescaped in config/ is evaluated by strata's render); %s",
				name, argocdHint))
		}
	}
	return findings
}

// helmEscaped matches an action that Argo CD's Helm turns into the
// string it quotes: {{`{{ .name }}`}}.
var helmEscaped = regexp.MustCompile("\\{\\{-?\\s*`([^`]*)`\\s*-?\\}\\}")

// helmUnescape returns s as Argo CD's Helm render of rendered/ leaves the
// escaped actions in it ({{`{{ .name }}`}} becomes {{ .name }}): what Argo
// CD's own templating sees.
func helmUnescape(s string) string {
	if !strings.Contains(s, "`") {
		return s
	}
	return helmEscaped.ReplaceAllString(s, "$1")
}

// unescapedExpr returns the first action of s that Argo CD's Helm would
// evaluate and that refers to a field Helm's data does not have ({{ .name }},
// not {{ .Values.x }} nor an escaped {{`{{ .name }}`}}), or "".
func unescapedExpr(s string) string {
	if !strings.Contains(s, "{{") {
		return ""
	}
	for _, m := range helmAction.FindAllStringSubmatch(s, -1) {
		body := m[1]
		if strings.HasPrefix(body, "`") || strings.HasPrefix(body, `"`) {
			continue // escaped: a string Helm prints
		}
		for _, f := range dotField.FindAllStringSubmatch(stripStrings(body), -1) {
			if !helmRoots[f[1]] {
				return m[0]
			}
		}
	}
	return ""
}

// stripStrings removes the string literals of a template action.
func stripStrings(s string) string {
	var b strings.Builder
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == '\\' && quote == '"':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
		case c == '"' || c == '`':
			quote = c
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// walkRendered calls f with the path (spec.template.metadata.name,
// spec.generators[0]...) and text of every string of a decoded object.
func walkRendered(path string, v any, f func(path, s string)) {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := k
			if strings.ContainsAny(k, ".[]") {
				p = "[" + k + "]"
			} else if path != "" {
				p = "." + k
			}
			walkRendered(path+p, v[k], f)
		}
	case []any:
		for i, it := range v {
			walkRendered(path+"["+strconv.Itoa(i)+"]", it, f)
		}
	case string:
		f(path, v)
	}
}
