package importer

import (
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// A string of an imported object reaches Argo CD through two template
// engines: strata's second pass over the values and Argo CD's Helm render
// of rendered/ (the root Application's source is a chart). Text with "{{"
// in it (an ApplicationSet's {{name}} or {{ .path.basename }}) is meant for
// the engine after those, the ApplicationSet controller, so escape writes
// each action of it as an action of the first engine that prints an action
// of the second that prints the original: {{name}} becomes
// {{ "{{`{{name}}`}}" }} in config/, {{`{{name}}`}} in rendered/, and
// {{name}} for the controller, byte for byte (chart.md's table, written by
// hand). An action already spaced as the argocd template function spaces
// it, {{ .path.basename }}, is written with that function:
// {{ argocd ".path.basename" }}.

// escape returns s as config/ must hold it for Argo CD to get s.
func escape(s string) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	var b strings.Builder
	for s != "" {
		i := strings.Index(s, "{{")
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i]) // holds no "{{", nor ends with "{"
		seg := s[i:]
		if j := strings.Index(s[i+2:], "}}"); j >= 0 {
			seg = s[i : i+2+j+2]
		}
		s = s[i+len(seg):]
		b.WriteString(escapeAction(seg))
	}
	return b.String()
}

// escapeAction writes seg, which starts with "{{", as an action of strata's
// pass that prints an action of Argo CD's Helm that prints seg.
func escapeAction(seg string) string {
	inner := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(seg, "{{"), "}}"))
	if inner != "" && seg == "{{ "+inner+" }}" && !strings.ContainsAny(inner, "`{}") {
		return "{{ argocd " + strconv.Quote(inner) + " }}" // render's argocd writes {{`{{ inner }}`}}
	}
	helm := "{{`" + seg + "`}}"
	if strings.Contains(seg, "`") {
		helm = "{{ " + strconv.Quote(seg) + " }}"
	}
	return "{{ " + strconv.Quote(helm) + " }}"
}

// escapeNode returns a copy of n with every string scalar escaped (keys
// too: pass 2 runs over the whole text).
func escapeNode(n *yaml.Node) *yaml.Node {
	c := *n
	if n.Kind == yaml.ScalarNode {
		if n.ShortTag() == "!!str" {
			c.Value = escape(n.Value)
		}
		return &c
	}
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, k := range n.Content {
		c.Content[i] = escapeNode(k)
	}
	return &c
}

// hasAction reports whether a string of n holds "{{".
func hasAction(n *yaml.Node) bool {
	if n.Kind == yaml.ScalarNode {
		return strings.Contains(n.Value, "{{")
	}
	for _, k := range n.Content {
		if hasAction(k) {
			return true
		}
	}
	return false
}
