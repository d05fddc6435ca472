package fleet

import (
	"fmt"
	"path"
	"strings"
	"unicode"

	"github.com/strata-fleet/strata/internal/values"
)

// NamePlaceholder is the placeholder of layout.manifests that stands for
// a resource's metadata.name: one file per resource.
const NamePlaceholder = "{name}"

// Manifests is config.yaml's layout.manifests: the target's directory
// holds its resources as plain YAML (what Argo CD renders strata's chart
// to), no chart, in the files it names:
//
//	layout:
//	  path: argocd/rendered/{environment}/{region}/{clusterType}-manifests
//	  manifests: applicationset.yaml    # every resource in this one file
//	  # manifests: "{name}.yaml"        # one file per resource
//
// "" (no key) is strata's chart: Chart.yaml, values.yaml and
// templates/<name>.yaml.
func (l *Layout) Manifests() string {
	if l == nil {
		return ""
	}
	return l.manifests
}

// Plain reports whether targets hold plain manifests rather than a chart.
func (l *Layout) Plain() bool { return l.Manifests() != "" }

// ManifestFile returns the file, relative to the target's directory, that
// holds the resource called name.
func (l *Layout) ManifestFile(name string) string {
	switch m := l.Manifests(); {
	case m == "":
		return "templates/" + name + ".yaml"
	case strings.Contains(m, NamePlaceholder):
		return strings.ReplaceAll(m, NamePlaceholder, name)
	default:
		return m
	}
}

// parseLayoutManifests reads layout.manifests into l.
func parseLayoutManifests(l *Layout, v *values.Value) error {
	if v == nil || v.Kind == values.Null {
		return nil
	}
	p := []string{"layout", "manifests"}
	const hint = "a file name in the target's directory: manifests: applicationset.yaml (every resource in one file) or manifests: \"{name}.yaml\" (one file per resource)"
	if v.Kind != values.String {
		e := values.TypeError(v, p, values.String)
		e.Hint = hint
		return e
	}
	s := v.Text
	bad := func(msg string) error { return &values.Error{Pos: v.Pos, Path: p, Msg: msg, Hint: hint} }
	rest := strings.ReplaceAll(s, NamePlaceholder, "x")
	switch {
	case s == "":
		return bad("the manifests' file name is empty")
	case strings.ContainsAny(s, "/\\"):
		return bad(fmt.Sprintf("the manifests' file %q is not a file name: it is written in the target's directory itself", s))
	case strings.ContainsAny(rest, "{}"):
		return bad(fmt.Sprintf("the manifests' file %q has a placeholder other than %s", s, NamePlaceholder))
	case strings.Count(s, NamePlaceholder) > 1:
		return bad(fmt.Sprintf("the manifests' file %q names %s twice", s, NamePlaceholder))
	case strings.HasPrefix(s, "."):
		return bad(fmt.Sprintf("the manifests' file %q is hidden: Argo CD does not read it", s))
	case path.Ext(s) != ".yaml" && path.Ext(s) != ".yml":
		return bad(fmt.Sprintf("the manifests' file %q does not end in .yaml or .yml: Argo CD reads a directory's YAML files only", s))
	case strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }):
		return bad(fmt.Sprintf("the manifests' file %q holds a character that does not print", s))
	case s == "Chart.yaml":
		return bad("the manifests' file Chart.yaml would make Argo CD read the directory as a Helm chart")
	}
	l.manifests = s
	return nil
}

// checkPlainPins refuses a revision pin (a node's revision:) in a fleet
// whose targets hold plain manifests under strata's root ApplicationSets:
// those roots read the pinned revision from the target's values.yaml, which
// plain manifests do not have. Named revisions (revisions:) are written
// into the resources themselves and need no such file.
func (c *Config) checkPlainPins() error {
	if !c.Layout.Plain() || c.RootKind() != RootApplicationSet {
		return nil
	}
	var err error
	var walk func(n *Node)
	walk = func(n *Node) {
		if err != nil {
			return
		}
		if n.Revision != nil {
			err = &values.Error{Pos: n.Revision.Pos, Path: []string{"revision"},
				Msg:  fmt.Sprintf("%s pins the revision of its whole tree, but its targets hold plain manifests (layout.manifests at %s): strata's root ApplicationSet reads that pin from the target's values.yaml, which plain manifests do not have", nodeLabel(n), c.Layout.Pos),
				Hint: "pin each source with a named revision (revisions: {charts: REV}, read as {{ .Values.cluster.revisions.charts }}), or set roots.kind: Application (a pin then reaches a cluster with strata bootstrap --apply)"}
			return
		}
		for _, ch := range n.Children {
			walk(ch)
		}
	}
	walk(c.Root)
	return err
}

// nodeLabel names node n in a message.
func nodeLabel(n *Node) string {
	if n.ID() == "" {
		return "the fleet"
	}
	return "node " + n.ID()
}
