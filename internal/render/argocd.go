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

// Facts of a cluster known only at run time (written onto its Argo CD
// cluster Secret by Terraform or a controller) reach an ApplicationSet's
// template through its clusters generator, which gives the Secret's
// metadata to goTemplate as .metadata.labels and .metadata.annotations.
// clusterLabel "x" and clusterAnnotation "x" write that reference, escaped
// as argocd does: {{ index .metadata.labels "x" }} for the controller,
// whatever the key's characters (dots, slashes, dashes). strata validate
// checks that the key is declared for the inventory's clusters
// (validate/secretkeys.go).

// clusterSecretFunc makes clusterLabel (field "labels") or
// clusterAnnotation (field "annotations").
func clusterSecretFunc(name, field string) func(string) (string, error) {
	return func(key string) (string, error) {
		switch {
		case key == "":
			return "", fmt.Errorf("%s: an empty key (name the Secret's %s key: %s \"aws_account_id\")", name, strings.TrimSuffix(field, "s"), name)
		case strings.ContainsAny(key, "`\"\\{}") || strings.ContainsFunc(key, func(r rune) bool { return r < ' ' || r == 0x7f }):
			return "", fmt.Errorf("%s %q: a Kubernetes %s key holds no quote, backslash, brace or control character", name, key, strings.TrimSuffix(field, "s"))
		}
		return argocdFunc(fmt.Sprintf("index .metadata.%s %q", field, key))
	}
}

// addStrataFuncs adds strata's own template functions to funcs (made when
// nil) and returns it: the render's both passes have them.
func addStrataFuncs(funcs template.FuncMap) template.FuncMap {
	if funcs == nil {
		funcs = template.FuncMap{}
	}
	funcs["argocd"] = argocdFunc
	funcs["clusterLabel"] = clusterSecretFunc("clusterLabel", "labels")
	funcs["clusterAnnotation"] = clusterSecretFunc("clusterAnnotation", "annotations")
	if _, ok := funcs[rangeTextFunc]; !ok {
		funcs[rangeTextFunc] = func(int) string { return "" } // no budget
	}
	return funcs
}
