package importer

import (
	"path"
	"reflect"

	"gopkg.in/yaml.v3"
)

// The plain values files a source's tooling writes beside its targets
// (Target.Values: the regional platform's <type>-values.yaml) become the
// section ValuesSection of one component, ValuesComponent, of each cluster
// type: each top-level key of a file is an item (config.yaml's
// layout.values writes them back as the file's keys). A key is written at
// the highest node under which every target has it, and what the targets
// under a node share beyond their parent's in its override.yaml, as
// objects are (tree.place); a target without the key gets nothing (a
// values file has no enabled: false).
const (
	ValuesSection   = "values"
	ValuesComponent = "shard-values"
)

// placeValues writes the values files of src's targets (of one cluster
// type) into the files of ValuesComponent; false when none has one.
func (t *tree) placeValues(files map[string]*yaml.Node, src *Source) bool {
	byKey := map[string]map[int]*yaml.Node{}
	var keys []string
	for ti, tg := range src.Targets {
		if tg.Values == nil {
			continue
		}
		for i := 0; i+1 < len(tg.Values.Content); i += 2 {
			k := tg.Values.Content[i].Value
			if byKey[k] == nil {
				byKey[k] = map[int]*yaml.Node{}
				keys = append(keys, k)
			}
			byKey[k][ti] = tg.Values.Content[i+1]
		}
	}
	for _, k := range keys {
		t.root.placeValue(files, k, byKey[k], nil, true)
	}
	if len(keys) > 0 && files["values.yaml"] == nil { // every component has one
		files["values.yaml"] = mapping(ValuesSection, &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle})
	}
	return len(keys) > 0
}

// placeValue writes the key k of the values files of the targets under n
// (items, by target) at n when all of them have it, else under n's
// children; parent is what n's parent has for it (nil: nothing).
func (n *node) placeValue(files map[string]*yaml.Node, k string, items map[int]*yaml.Node, parent *yaml.Node, top bool) {
	var under []*yaml.Node
	all := true
	n.walk(func(l *node) {
		if it, ok := items[l.target]; ok {
			under = append(under, it)
		} else {
			all = false
		}
	})
	if len(under) == 0 {
		return
	}
	file := path.Join(n.rel, "override.yaml")
	if top {
		file = "values.yaml"
	}
	var here *yaml.Node
	switch {
	case !all:
	case allMappings(under):
		here = common(under)
		d := here
		if parent != nil && parent.Kind == yaml.MappingNode {
			d = diff(here, parent)
		}
		if d = pruneEmpty(d, under); len(d.Content) > 0 || parent == nil && anyEmpty(under) {
			add(files, file, ValuesSection, k, d)
		}
	case allEqual(under):
		if parent == nil || !nodesEqual(parent, under[0]) {
			add(files, file, ValuesSection, k, under[0])
		}
		return // every target under n has this value
	}
	if here == nil && parent != nil && all {
		here = parent
	}
	for _, c := range n.children {
		c.placeValue(files, k, items, here, false)
	}
}

// pruneEmpty returns m without the empty mappings that only stand for
// keys the items (the mappings m is common to) hold with different
// contents: each target gets those keys from the nodes below, and an empty
// mapping there would say nothing. An empty mapping some item holds as it
// is stays.
func pruneEmpty(m *yaml.Node, items []*yaml.Node) *yaml.Node {
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: m.Style}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if v.Kind == yaml.MappingNode {
			var sub []*yaml.Node
			for _, it := range items {
				if x := get(it, k.Value); x != nil && x.Kind == yaml.MappingNode {
					sub = append(sub, x)
				}
			}
			if v = pruneEmpty(v, sub); len(v.Content) == 0 && !anyEmpty(sub) {
				continue
			}
		}
		out.Content = append(out.Content, k, v)
	}
	return out
}

// anyEmpty reports whether one of ms is an empty mapping.
func anyEmpty(ms []*yaml.Node) bool {
	for _, m := range ms {
		if m.Kind == yaml.MappingNode && len(m.Content) == 0 {
			return true
		}
	}
	return false
}

// pinsAt returns the revisions: a sequence node n pins, when every target
// under it pins the same (named revision -> cluster type -> revision) and
// no ancestor of n did (lifted): written at the highest such node, so that
// strata pin NODE --name moves them there. nil for none.
func pinsAt(src *Source, n *node, types []string, lifted bool) *yaml.Node {
	if lifted || len(src.Revisions) == 0 {
		return nil
	}
	var first map[string]map[string]string
	same, pinned := true, false
	n.walk(func(l *node) {
		p := map[string]map[string]string{}
		for _, t := range src.Targets {
			if t.ID() != l.rel {
				continue
			}
			for name, rev := range t.Pins {
				if p[name] == nil {
					p[name] = map[string]string{}
				}
				p[name][src.typeOf(t)] = rev
				pinned = true
			}
		}
		if first == nil {
			first = p
		} else if !reflect.DeepEqual(first, p) {
			same = false
		}
	})
	if !same || !pinned {
		return nil
	}
	revs := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle}
	for _, name := range src.Revisions {
		per := first[name]
		if len(per) == 0 {
			continue
		}
		all := len(per) == len(types)
		for _, r := range per {
			all = all && r == per[types[0]]
		}
		if all {
			revs.Content = append(revs.Content, scalar(name), scalar(per[types[0]]))
			continue
		}
		m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle}
		for _, ct := range types {
			if r, ok := per[ct]; ok {
				m.Content = append(m.Content, scalar(ct), scalar(r))
			}
		}
		revs.Content = append(revs.Content, scalar(name), m)
	}
	return revs
}

// pinRefs returns n with each string that is one of the target's pins
// (pins: named revision -> revision) written as the named revision's
// template, {{ .Values.cluster.revisions.<name> }}: strata render writes
// the pin back, and strata pin --name moves it.
func pinRefs(n *yaml.Node, pins map[string]string) *yaml.Node {
	if len(pins) == 0 {
		return n
	}
	switch n.Kind {
	case yaml.ScalarNode:
		for name, rev := range pins {
			if n.ShortTag() == "!!str" && rev != "" && n.Value == rev {
				c := *n
				c.Value, c.Style = "{{ .Values.cluster.revisions."+name+" }}", 0
				return &c
			}
		}
		return n
	case yaml.MappingNode, yaml.SequenceNode:
		c := *n
		c.Content = append([]*yaml.Node(nil), n.Content...)
		for i, k := range c.Content {
			if n.Kind == yaml.MappingNode && i%2 == 0 {
				continue
			}
			c.Content[i] = pinRefs(k, pins)
		}
		return &c
	}
	return n
}

// RebaseLayout rewrites the paths of the source's layout (relative to the
// file system the format read) with rel: their paths from the fleet's
// root, where the fleet is written elsewhere than that file system's root.
func (s *Source) RebaseLayout(rel func(string) string) {
	if s.Layout == nil {
		return
	}
	for _, m := range []*yaml.Node{s.Layout, get(s.Layout, "values")} {
		if p := get(m, "path"); p != nil && p.Kind == yaml.ScalarNode {
			p.Value = rel(p.Value)
		}
	}
}
