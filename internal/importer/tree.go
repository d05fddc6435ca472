package importer

import (
	"path"

	"gopkg.in/yaml.v3"
)

// tree is the sequence the targets make: a node per distinct prefix of
// their paths, children in the order the targets come.
type tree struct {
	src  *Source
	root *node
}

type node struct {
	name     string
	rel      string // the node's directory under a component: prod/dc11a
	children []*node
	target   int // the leaf's target, -1 for inner nodes
}

func newTree(src *Source) *tree {
	root := &node{target: -1}
	for ti, t := range src.Targets {
		n := root
		for depth, name := range t.Path {
			var next *node
			for _, c := range n.children {
				if c.name == name {
					next = c
				}
			}
			if next == nil {
				next = &node{name: name, rel: path.Join(n.rel, name), target: -1}
				n.children = append(n.children, next)
			}
			if depth == len(t.Path)-1 {
				next.target = ti
			}
			n = next
		}
	}
	return &tree{src: src, root: root}
}

// leaves lists the tree's leaves.
func (t *tree) leaves() []*node {
	var out []*node
	t.root.walk(func(n *node) { out = append(out, n) })
	return out
}

// sequenceWith writes the tree as config.yaml's sequence, the leaves with
// the targets' pins (of the cluster types types).
func (t *tree) sequenceWith(types []string) *yaml.Node {
	return mapping(t.src.Dimensions[0], t.level(t.root, 0, types, false))
}

// level writes n's children; lifted says an ancestor holds their pins.
func (t *tree) level(n *node, depth int, types []string, lifted bool) *yaml.Node {
	list := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, c := range n.children {
		pins := pinsAt(t.src, c, types, lifted)
		if depth == len(t.src.Dimensions)-1 {
			if pins != nil {
				list.Content = append(list.Content, mapping("name", c.name, "revisions", pins))
			} else {
				list.Content = append(list.Content, scalar(c.name))
			}
			continue
		}
		m := mapping("name", c.name)
		if pins != nil {
			m.Content = append(m.Content, mapping("revisions", pins).Content...)
		}
		m.Content = append(m.Content, mapping(t.src.Dimensions[depth+1], t.level(c, depth+1, types, lifted || pins != nil)).Content...)
		list.Content = append(list.Content, m)
	}
	return list
}

// place writes the item called name of section sec, which the targets of
// items have, into a component's files: what all of them share in
// values.yaml, what the targets under a node share beyond that in the
// node's override.yaml, enabled: false where no target under a node has it.
func (t *tree) place(files map[string]*yaml.Node, sec, name string, items map[int]*yaml.Node) {
	base := t.root.common(items)
	add(files, "values.yaml", sec, name, base)
	for _, c := range t.root.children {
		c.place(files, sec, name, items, base)
	}
}

func (n *node) place(files map[string]*yaml.Node, sec, name string, items map[int]*yaml.Node, parent *yaml.Node) {
	base := n.common(items)
	if base == nil {
		add(files, path.Join(n.rel, "override.yaml"), sec, name, mapping("enabled", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "false"}))
		return
	}
	if d := diff(base, parent); len(d.Content) > 0 {
		add(files, path.Join(n.rel, "override.yaml"), sec, name, d)
	}
	for _, c := range n.children {
		c.place(files, sec, name, items, base)
	}
}

// common returns what the items of the targets under n share, or nil when
// none of them has one.
func (n *node) common(items map[int]*yaml.Node) *yaml.Node {
	var under []*yaml.Node
	n.walk(func(l *node) {
		if it, ok := items[l.target]; ok {
			under = append(under, it)
		}
	})
	if len(under) == 0 {
		return nil
	}
	return common(under)
}

func (n *node) walk(leaf func(*node)) {
	if n.target >= 0 {
		leaf(n)
	}
	for _, c := range n.children {
		c.walk(leaf)
	}
}

// common returns the mapping of what all of ms (mappings) share: a key
// every one has, with the common part of their values where all are
// mappings, or the value where all are equal.
func common(ms []*yaml.Node) *yaml.Node {
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	first := ms[0]
	for i := 0; i+1 < len(first.Content); i += 2 {
		k := first.Content[i]
		vals := []*yaml.Node{first.Content[i+1]}
		for _, m := range ms[1:] {
			if v := get(m, k.Value); v != nil {
				vals = append(vals, v)
			}
		}
		if len(vals) < len(ms) {
			continue
		}
		switch {
		case allMappings(vals):
			out.Content = append(out.Content, k, common(vals))
		case allEqual(vals):
			out.Content = append(out.Content, k, vals[0])
		}
	}
	return out
}

// diff returns what mapping m holds beyond base, which it includes: merged
// over base (strata's merge: mappings recursively, the rest replaced), the
// result is m.
func diff(m, base *yaml.Node) *yaml.Node {
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		b := get(base, k.Value)
		switch {
		case b == nil:
			out.Content = append(out.Content, k, v)
		case v.Kind == yaml.MappingNode && b.Kind == yaml.MappingNode:
			if d := diff(v, b); len(d.Content) > 0 {
				out.Content = append(out.Content, k, d)
			}
		case !nodesEqual(v, b):
			out.Content = append(out.Content, k, v)
		}
	}
	return out
}

func allMappings(ns []*yaml.Node) bool {
	for _, n := range ns {
		if n.Kind != yaml.MappingNode {
			return false
		}
	}
	return true
}

func allEqual(ns []*yaml.Node) bool {
	for _, n := range ns[1:] {
		if !nodesEqual(ns[0], n) {
			return false
		}
	}
	return true
}

// add adds sec.name: item to the document at rel of files.
func add(files map[string]*yaml.Node, rel, sec, name string, item *yaml.Node) {
	doc := files[rel]
	if doc == nil {
		doc = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		files[rel] = doc
	}
	s := get(doc, sec)
	if s == nil {
		s = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		doc.Content = append(doc.Content, scalar(sec), s)
	}
	s.Content = append(s.Content, scalar(name), item)
}
