package importer

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// rootsConfig returns config.yaml's roots: that keeps the targets' roots as
// the team has them (kind Application; their name as a pattern over
// {cluster}, the target's leaf; their project and syncPolicy), or nil and
// why not: a target without a root, or roots that differ in what roots:
// holds once for all.
func rootsConfig(targets []*Target, roots []*Object) (*yaml.Node, string) {
	if len(roots) == 0 || len(roots) != len(targets) {
		return nil, "not every target has a root"
	}
	var name, project string
	var sync *yaml.Node
	for i, r := range roots {
		leaf := targets[i].Path[len(targets[i].Path)-1]
		n := replaceWord(r.Name, leaf, "{cluster}")
		spec := get(r.Doc, "spec")
		p := str(spec, "project")
		if p == "" {
			p = "default"
		}
		sp := get(spec, "syncPolicy")
		if i == 0 {
			name, project, sync = n, p, sp
			continue
		}
		switch {
		case n != name:
			return nil, fmt.Sprintf("the roots' names follow no one pattern (%s, %s)", roots[0].Name, r.Name)
		case p != project:
			return nil, fmt.Sprintf("the roots are in different projects (%s, %s)", project, p)
		case (sp == nil) != (sync == nil) || sp != nil && !nodesEqual(sp, sync):
			return nil, fmt.Sprintf("the roots' syncPolicies differ (%s, %s)", roots[0].At, r.At)
		}
	}
	if !strings.Contains(name, "{cluster}") && len(roots) > 1 {
		return nil, fmt.Sprintf("the roots share one name, %s, which strata would give the roots of one Argo CD", name)
	}
	kv := []any{"kind", "Application", "name", name, "project", project}
	if sync != nil {
		kv = append(kv, "syncPolicy", plainNode(sync))
	}
	return mapping(kv...), ""
}

// plainNode is a copy of n without comments and styles of its own, for a
// file strata writes.
func plainNode(n *yaml.Node) *yaml.Node {
	c := &yaml.Node{Kind: n.Kind, Tag: n.Tag, Value: n.Value}
	if n.Kind == yaml.ScalarNode {
		c.Style = n.Style & (yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle)
	}
	for _, x := range n.Content {
		c.Content = append(c.Content, plainNode(x))
	}
	return c
}
