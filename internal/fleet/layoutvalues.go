package fleet

import (
	"fmt"
	"strings"

	"github.com/strata-fleet/strata/internal/values"
)

// layoutValues is config.yaml's layout.values: a plain values file written
// beside each target's directory, for ApplicationSets that read it through
// a $values source (the regional platform's <type>-values.yaml):
//
//	layout:
//	  path: argocd/rendered/{environment}/{region}/{clusterType}-manifests
//	  values:
//	    path: argocd/rendered/{environment}/{region}/{clusterType}-values.yaml
//	    section: values
//
// The file holds the target's section (each of its items a top-level key,
// merged as every item is), written as it merged: its strings are not
// templates. It lies under the output root, outside every target's
// directory, and belongs to its target: render writes it with the target,
// all or nothing, and removes it when the target goes.
type layoutValues struct {
	pattern *Layout // the file's path, a pattern as layout.path
	section string
}

// ValuesSection is the section of a target's values that its values file
// holds; "" when the layout writes none.
func (l *Layout) ValuesSection() string {
	if l == nil || l.values == nil {
		return ""
	}
	return l.values.section
}

// ValuesFile returns the path, relative to the repository, of the values
// file of the target of cluster type ct at the full-depth node n; "" when
// the layout writes none.
func (l *Layout) ValuesFile(ct string, n *Node) string {
	if l == nil || l.values == nil {
		return ""
	}
	return l.values.pattern.Dir(ct, n)
}

// Paths returns what holds the output of the target of cluster type ct at
// the full-depth node n: its directory, then its values file if any.
func (l *Layout) Paths(ct string, n *Node) []string {
	if f := l.ValuesFile(ct, n); f != "" {
		return []string{l.Dir(ct, n), f}
	}
	return []string{l.Dir(ct, n)}
}

// parseLayoutValues reads layout.values into l.
func (c *Config) parseLayoutValues(l *Layout, v *values.Value) error {
	if v == nil || v.Kind == values.Null {
		return nil
	}
	path := []string{"layout", "values"}
	const hint = "values: {path: argocd/rendered/{environment}/{region}/{clusterType}-values.yaml, section: values}"
	if v.Kind != values.Map {
		e := values.TypeError(v, path, values.Map)
		e.Hint = hint
		return e
	}
	if err := knownKeys(v, path, "path", "section"); err != nil {
		return err
	}
	for _, k := range []string{"path", "section"} {
		if v.Get(k) == nil {
			return &values.Error{Pos: v.Pos, Path: path, Msg: "missing key " + k, Hint: hint}
		}
	}
	sec := v.Get("section")
	if sec.Kind != values.String {
		return values.TypeError(sec, append(path, "section"), values.String)
	}
	if err := checkName(sec.Text); err != nil || resourceSections[sec.Text] || sec.Text == "cluster" {
		return &values.Error{Pos: sec.Pos, Path: append(path, "section"),
			Msg:  fmt.Sprintf("%q cannot be the values file's section", sec.Text),
			Hint: "a section of the components' values.yaml of its own, such as values (not cluster, applications, applicationsets or appprojects)"}
	}
	p := v.Get("path")
	ppath := append(path, "path")
	pl, err := c.parseLayoutPattern(p, ppath)
	if err != nil {
		return err
	}
	bad := func(msg string) error {
		return &values.Error{Pos: p.Pos, Path: ppath, Msg: msg,
			Hint: "a file of its own per target, under the output root " + l.root + "/ and outside every target's directory, such as " + l.root + "/{environment}/{clusterType}-values.yaml"}
	}
	if !strings.HasPrefix(pl.root+"/", l.root+"/") {
		return bad(fmt.Sprintf("the values file %q is not under the output root %s/: render owns only that directory", p.Text, l.root))
	}
	if err := c.checkLayoutDistinct(pl, p, ppath); err != nil {
		return err
	}
	dirs := map[string]string{}  // lower-cased target directory -> target
	above := map[string]string{} // lower-cased directory above one -> target
	for _, t := range c.layoutTargets() {
		d := strings.ToLower(l.Dir(t.ClusterType, t.Node))
		dirs[d] = t.ID()
		for i := strings.LastIndexByte(d, '/'); i > 0; i = strings.LastIndexByte(d[:i], '/') {
			above[d[:i]] = t.ID()
		}
	}
	for _, t := range c.layoutTargets() {
		f := strings.ToLower(pl.Dir(t.ClusterType, t.Node))
		for d := f; strings.Contains(d, "/"); d = d[:strings.LastIndexByte(d, '/')] {
			if id, ok := dirs[d]; ok {
				return bad(fmt.Sprintf("the values file of %s, %s, is inside the directory of target %s", t.ID(), pl.Dir(t.ClusterType, t.Node), id))
			}
		}
		if id, ok := above[f]; ok {
			return bad(fmt.Sprintf("the values file of %s, %s, holds the directory of target %s", t.ID(), pl.Dir(t.ClusterType, t.Node), id))
		}
	}
	l.values = &layoutValues{pattern: pl, section: sec.Text}
	return nil
}

// TargetPathsOf returns what holds the output of the target whose ID is id
// (<cluster type>/<node path>): its directory, then its values file if the
// layout writes one; false as TargetDirOf.
func (c *Config) TargetPathsOf(id string) ([]string, bool) {
	dir, ok := c.TargetDirOf(id)
	if !ok {
		return nil, false
	}
	ct, nodeID, _ := strings.Cut(id, "/")
	if f := c.Layout.ValuesFile(ct, c.nodeByID(nodeID)); f != "" {
		return []string{dir, f}, true
	}
	return []string{dir}, true
}
