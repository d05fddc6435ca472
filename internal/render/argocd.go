package render

import (
	"fmt"
	"strings"
	"text/template"
)

// An expression for Argo CD's own templating (an ApplicationSet's
// goTemplate: {{ .name }}, {{ .path.basename }}) passes three template
// engines: strata's second pass over the values, then Argo CD's Helm render
// of rendered/ (the root Application), then the ApplicationSet controller.
// Written by hand it needs three levels of escaping,
// {{ "{{`{{ .name }}`}}" }}; the template function argocd says what is
// meant instead: {{ argocd ".name" }} writes {{`{{ .name }}`}} into
// rendered/, which Argo CD's Helm turns into {{ .name }} for the
// controller. strata validate flags what reaches Argo CD's Helm escaped one
// level too few (validate/argotemplates.go).

// argocdFunc is the argocd template function: expr, an expression of
// Argo CD's templating without its braces, as rendered/ must hold it.
func argocdFunc(expr string) (string, error) {
	expr = strings.TrimSpace(expr)
	switch {
	case expr == "":
		return "", fmt.Errorf("argocd: an empty expression (write the expression without its braces: argocd \".name\")")
	case strings.Contains(expr, "`"):
		return "", fmt.Errorf("argocd %q: a backquote cannot be escaped for Argo CD's Helm; write its strings in double quotes", expr)
	case strings.HasPrefix(expr, "{{") || strings.HasSuffix(expr, "}}"):
		return "", fmt.Errorf("argocd %q: write the expression without its braces: argocd %q", expr, strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(expr, "{{"), "}}")))
	}
	return "{{`{{ " + expr + " }}`}}", nil
}

// addStrataFuncs adds strata's own template functions to funcs (made when
// nil) and returns it: the render's both passes have them.
func addStrataFuncs(funcs template.FuncMap) template.FuncMap {
	if funcs == nil {
		funcs = template.FuncMap{}
	}
	funcs["argocd"] = argocdFunc
	if _, ok := funcs[rangeTextFunc]; !ok {
		funcs[rangeTextFunc] = func(int) string { return "" } // no budget
	}
	return funcs
}
