package fleet

import (
	"fmt"
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/values"
)

// parseAt reads a cluster type's at: key, the nodes of the sequence where
// the cluster type exists: a list of node paths ("tenant1",
// "tenant1/prod"), each standing for the full-depth nodes under it. Without
// at: a cluster type exists at every target.
func (c *Config) parseAt(v *values.Value, path []string) ([]*Node, error) {
	path = append(path[:len(path):len(path)], "at")
	hint := "at: lists the nodes of the sequence where the cluster type exists, as paths: at: [" + firstPath(c.Root) + "]"
	if v.Kind != values.List || len(v.Items) == 0 {
		return nil, &values.Error{Pos: v.Pos, Path: path, Msg: "expected a non-empty list of node paths, got " + describe(v), Hint: hint}
	}
	var out []*Node
	for i, it := range v.Items {
		ipath := append(path[:len(path):len(path)], fmt.Sprint(i))
		if it.Kind != values.String || it.Text == "" {
			return nil, &values.Error{Pos: it.Pos, Path: ipath, Msg: "expected a node path, got " + describe(it), Hint: hint}
		}
		n, err := c.findAt(it.Text)
		if err != nil {
			return nil, &values.Error{Pos: it.Pos, Path: ipath, Msg: err.Error(), Hint: err.hint}
		}
		if slices.ContainsFunc(out, func(o *Node) bool { return o.covers(n) || n.covers(o) }) {
			return nil, values.Errorf(it.Pos, ipath, "node %q overlaps another node of at:", n.ID())
		}
		out = append(out, n)
	}
	return out, nil
}

type atError struct{ msg, hint string }

func (e *atError) Error() string { return e.msg }

// findAt resolves a node path of at:, or says which name is unknown and
// suggests the closest sibling.
func (c *Config) findAt(p string) (*Node, *atError) {
	n := c.Root
	for _, name := range strings.Split(p, "/") {
		next := n.Child(name)
		if next == nil {
			var names []string
			for _, ch := range n.Children {
				names = append(names, ch.Name)
			}
			what := "node"
			if n.Depth < len(c.Dimensions) {
				what = c.Dimensions[n.Depth].Singular
			}
			e := &atError{msg: fmt.Sprintf("%q names no node of the sequence: no %s %q", p, what, name)}
			if n.Depth > 0 {
				e.msg += fmt.Sprintf(" under %q", n.ID())
			}
			switch {
			case len(names) == 0:
				e.hint = fmt.Sprintf("%q is a full-depth target: nothing is under it", n.ID())
			default:
				e.hint = didYouMean(name, names)
			}
			return nil, e
		}
		n = next
	}
	return n, nil
}

func firstPath(root *Node) string {
	if len(root.Children) == 0 {
		return "<node>"
	}
	return root.Children[0].ID()
}

// covers reports whether m is n or a node under n.
func (n *Node) covers(m *Node) bool {
	for p := m; p != nil; p = p.Parent {
		if p == n {
			return true
		}
	}
	return false
}

// ExistsAt reports whether the cluster type has a target at or under node
// n: everywhere when config.yaml declares no at: for it.
func (ct *ClusterType) ExistsAt(n *Node) bool {
	if ct.At == nil {
		return true
	}
	for _, a := range ct.At {
		if a.covers(n) || n.covers(a) {
			return true
		}
	}
	return false
}

// targetsOf returns the targets (full-depth nodes, in rollout order) where a
// cluster type declared with at exists.
func targetsOf(all []*Node, at []*Node) []*Node {
	if at == nil {
		return all
	}
	var out []*Node
	for _, n := range all {
		if slices.ContainsFunc(at, func(a *Node) bool { return a.covers(n) }) {
			out = append(out, n)
		}
	}
	return out
}

// notThere is the error for a file of ct's at a node where ct does not
// exist: it would never be rendered.
func (l *loader) notThere(ct *ClusterType, n *Node, file string) error {
	e := &values.Error{Pos: values.Pos{File: file, Line: 1, Col: 1},
		Msg:  fmt.Sprintf("cluster type %q does not exist at %q: this file applies to no target", ct.Name, n.ID()),
		Hint: fmt.Sprintf("%q exists only under %s (config.yaml's at:); move the file, or add %q to at:", ct.Name, choices(nodeIDs(ct.At)), n.ID())}
	if i := slices.IndexFunc(l.cfg.ClusterTypes, func(d ClusterTypeDecl) bool { return d.Name == ct.Name }); i >= 0 {
		e.Also = []values.Pos{l.cfg.ClusterTypes[i].AtPos}
	}
	return e
}

func nodeIDs(nodes []*Node) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, n.ID())
	}
	return out
}
