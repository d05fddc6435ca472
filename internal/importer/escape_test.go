package importer

import (
	"strings"
	"testing"
	"text/template"
)

// passes evaluates s as strata's second pass and then Argo CD's Helm do
// (two template engines; argocd is render's function of that name).
func passes(t *testing.T, s string) string {
	t.Helper()
	funcs := template.FuncMap{"argocd": func(expr string) string { return "{{`{{ " + strings.TrimSpace(expr) + " }}`}}" }}
	for i := range 2 {
		tpl, err := template.New("x").Funcs(funcs).Parse(s)
		if err != nil {
			t.Fatalf("pass %d over %q: %v", i+1, s, err)
		}
		var b strings.Builder
		if err := tpl.Execute(&b, nil); err != nil {
			t.Fatalf("pass %d over %q: %v", i+1, s, err)
		}
		s = b.String()
	}
	return s
}

func TestEscape(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"no action", "plain text", "plain text"},
		{"closing braces only", "a }} b", "a }} b"},
		{"fasttemplate", "{{name}}-dev", "{{ \"{{`{{name}}`}}\" }}-dev"},
		{"go template spaced", "{{ .path.basename }}", `{{ argocd ".path.basename" }}`},
		{"two actions", "a{{ .x }}b{{y}}c", "a{{ argocd \".x\" }}b{{ \"{{`{{y}}`}}\" }}c"},
		{"quotes inside", `{{ index .metadata.labels "tier" }}`, `{{ argocd "index .metadata.labels \"tier\"" }}`},
		{"backquote inside", "{{ `raw` }}", "{{ \"{{ \\\"{{ `raw` }}\\\" }}\" }}"},
		{"unclosed", "x {{ y", "x {{ \"{{`{{ y`}}\" }}"},
		{"triple brace", "{{{x}}}", "{{ \"{{`{{{x}}`}}\" }}}"},
		{"brace before action", "{ {{x}}", "{ {{ \"{{`{{x}}`}}\" }}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := escape(tt.in)
			if got != tt.want {
				t.Errorf("escape(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if back := passes(t, got); back != tt.in {
				t.Errorf("two passes over %q give %q, want %q", got, back, tt.in)
			}
		})
	}
}

// FuzzEscape checks that two template passes over an escaped string give
// the string back, whatever it holds.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"{{name}}", "{{ .a }}-{{b}}", "{{ `x` }}", "{{", "}}{{", "{{{{}}}}", "a\"b{{'c'}}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got := passes(t, escape(s)); got != s {
			t.Errorf("two passes over escape(%q) give %q", s, got)
		}
	})
}
