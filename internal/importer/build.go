package importer

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/strata-fleet/strata/internal/values"
)

// Result is an imported fleet: the files to write (paths relative to the
// fleet's root, all under config/), the source it was made from, and what
// the import left out or found at fault.
type Result struct {
	Format   string
	Files    map[string][]byte
	Source   *Source
	Findings []Finding
}

// sectionOrder is the order of the sections in the files written.
var sectionOrder = []string{"applications", "applicationsets", "appprojects"}

// placed is one item of a target.
type placed struct {
	target int
	obj    *Object
	item   *yaml.Node
}

// Build turns src into a strata fleet: one component per object name, its
// values.yaml holding what every target that has the object shares, and an
// override.yaml at each node of the sequence for what the targets under it
// share beyond that; a target without the object gets enabled: false.
func Build(format string, src *Source) (*Result, error) {
	if err := checkShape(src); err != nil {
		return nil, err
	}
	res := &Result{Format: format, Files: map[string][]byte{}, Source: src}
	res.Findings = append(res.Findings, src.Findings...)
	prefixed := namedByCluster(src)
	types := src.types()
	for _, ct := range types {
		sub := &Source{ClusterType: ct, Dimensions: src.Dimensions, Generalize: src.Generalize}
		for _, t := range src.Targets {
			if src.typeOf(t) == ct {
				sub.Targets = append(sub.Targets, t)
			}
		}
		if len(sub.Targets) != len(newTree(src).leaves()) {
			return nil, fmt.Errorf("cluster type %s has objects for %d of the %d targets: strata renders every cluster type for every target", ct, len(sub.Targets), len(newTree(src).leaves()))
		}
		if err := buildType(res, sub, prefixed); err != nil {
			return nil, err
		}
	}
	res.Files["config/config.yaml"] = configFile(format, src, newTree(src), prefixed, types)
	for name, data := range src.Files {
		res.Files[name] = data
	}
	sortFindings(res.Findings)
	return res, nil
}

// buildType writes the components and defaults of src's one cluster type.
func buildType(res *Result, src *Source, prefixed bool) error {
	// items[component][section] lists the targets' items.
	items := map[string]map[string][]placed{}
	for ti, t := range src.Targets {
		c := &converter{target: t.Label()}
		seen := map[string]*Object{}
		for _, o := range t.Objects {
			if prev := seen[o.Name]; prev != nil {
				return &values.Error{Pos: posOf(o.At), Also: []values.Pos{posOf(prev.At)},
					Msg:  fmt.Sprintf("target %s: %s and %s have one name; strata names each rendered file after its object", t.Label(), prev.Key(), o.Key()),
					Hint: "rename one of them"}
			}
			seen[o.Name] = o
			sec, it, ok := c.item(o)
			if !ok {
				continue
			}
			comp := o.Name
			if o.Component != "" && o.Component != o.Name {
				comp = o.Component
				it.Content = append([]*yaml.Node{scalar("name"), scalar(o.Name)}, it.Content...)
			}
			if len(src.Targets) > 1 {
				it = byLeaf(it, t.Path[len(t.Path)-1], "{{ .Values.cluster."+singular(src.Dimensions[len(src.Dimensions)-1])+" }}")
			}
			if src.Generalize != nil {
				it = src.Generalize(t, o, it)
			}
			it = pinRefs(it, t.Pins)
			if prefixed {
				comp = strings.TrimPrefix(o.Name, t.Path[len(t.Path)-1]+"-")
			}
			if items[comp] == nil {
				items[comp] = map[string][]placed{}
			}
			items[comp][sec] = append(items[comp][sec], placed{target: ti, obj: o, item: it})
		}
		res.Findings = append(res.Findings, c.findings...)
	}
	ct := src.ClusterType
	used := map[string]bool{}
	tree := newTree(src)
	for _, comp := range sortedKeys(items) {
		files := map[string]*yaml.Node{} // path under the component -> document
		for _, sec := range sectionOrder {
			ps := items[comp][sec]
			if len(ps) == 0 {
				continue
			}
			used[sec] = true
			byTarget := map[int]*yaml.Node{}
			for _, p := range ps {
				byTarget[p.target] = p.item
			}
			tree.place(files, sec, comp, byTarget)
		}
		for rel, doc := range files {
			res.Files[path.Join("config", ct, comp, rel)] = encode("", doc)
		}
	}
	files := map[string]*yaml.Node{}
	if used[ValuesSection] = tree.placeValues(files, src); used[ValuesSection] {
		for rel, doc := range files {
			res.Files[path.Join("config", ct, ValuesComponent, rel)] = encode("", doc)
		}
	}
	res.Files[path.Join("config", ct, "defaults.yaml")] = defaultsFile(used)
	return nil
}

// checkShape checks that every target has one name per dimension and that
// no two targets share a path.
func checkShape(src *Source) error {
	if len(src.Targets) == 0 {
		return fmt.Errorf("no targets: found no Argo CD objects to import")
	}
	seen := map[string]bool{}
	for _, t := range src.Targets {
		if len(t.Path) != len(src.Dimensions) {
			return fmt.Errorf("target %s (%s) has %d levels, the fleet's dimensions (%s) %d", t.ID(), t.Dir, len(t.Path), strings.Join(src.Dimensions, ", "), len(src.Dimensions))
		}
		if seen[t.Label()] {
			return fmt.Errorf("two targets are named %s", t.Label())
		}
		seen[t.Label()] = true
	}
	return nil
}

// posOf reads "file:line" back into a position.
func posOf(at string) values.Pos {
	i := strings.LastIndexByte(at, ':')
	if i < 0 {
		return values.Pos{File: at}
	}
	var line int
	fmt.Sscanf(at[i+1:], "%d", &line)
	return values.Pos{File: at[:i], Line: line}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// encode writes doc as a YAML file, after a comment header when there is one.
func encode(header string, doc *yaml.Node) []byte {
	var b bytes.Buffer
	b.WriteString(header)
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		panic(fmt.Sprintf("encoding an imported file: %v", err)) // a node this package made
	}
	enc.Close()
	return b.Bytes()
}

// mapping makes a mapping node of key, value pairs.
func mapping(kv ...any) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i+1 < len(kv); i += 2 {
		m.Content = append(m.Content, scalar(kv[i].(string)), toNode(kv[i+1]))
	}
	return m
}

func toNode(v any) *yaml.Node {
	switch v := v.(type) {
	case *yaml.Node:
		return v
	case string:
		return scalar(v)
	case []string:
		s := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
		for _, x := range v {
			s.Content = append(s.Content, scalar(x))
		}
		return s
	}
	panic(fmt.Sprintf("toNode: %T", v))
}

// defaultsFile is the cluster type's defaults.yaml: an empty default item
// per section the fleet uses (the objects carry everything).
func defaultsFile(used map[string]bool) []byte {
	doc := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, sec := range append(sectionOrder, ValuesSection) {
		if used[sec] {
			doc.Content = append(doc.Content, scalar(sec), mapping("default", &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle}))
		}
	}
	return encode("# Every item of a section is merged over its default. The imported objects\n# carry all their fields, so the defaults are empty: move what every\n# component shares here.\n", doc)
}

// configFile is config/config.yaml: the dimensions, the sequence of the
// targets in the source's order, and the cluster type.
func configFile(format string, src *Source, t *tree, prefixed bool, types []string) []byte {
	cts := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, ct := range types {
		cts.Content = append(cts.Content, mapping("name", ct))
	}
	doc := mapping("dimensions", src.Dimensions)
	if len(src.Revisions) > 0 {
		revs := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, name := range src.Revisions {
			revs.Content = append(revs.Content, scalar(name), &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle})
		}
		r := mapping("revisions", revs)
		r.Content[0].HeadComment = "Named revisions, pinned per node (strata pin NODE REV --name NAME); where\nno node pins one, the cluster's own revision."
		doc.Content = append(doc.Content, r.Content...)
	}
	doc.Content = append(doc.Content, mapping("sequence", t.sequenceWith(types), "cluster_types", cts).Content...)
	if src.Layout != nil {
		r := mapping("layout", src.Layout)
		r.Content[0].HeadComment = "Where the repository's tooling writes each target, and its values file."
		doc.Content = append(doc.Content, r.Content...)
	}
	if prefixed {
		leaf := src.Dimensions[len(src.Dimensions)-1]
		r := mapping("render", mapping("namePrefix", "{{ .Values.cluster."+singular(leaf)+" }}-"))
		r.Content[0].HeadComment = "Every object is named after its cluster: a component per name without it."
		doc.Content = append(doc.Content, r.Content...)
	}
	doc.Content = append(doc.Content, src.Config...)
	if src.Roots != nil {
		r := mapping("roots", src.Roots)
		r.Content[0].HeadComment = "The roots as the repository has them: strata bootstrap writes these."
		doc.Content = append(doc.Content, r.Content...)
	}
	doc.Content[0].HeadComment = "Written by strata import " + format + ". The targets are in the order they were\nfound: order them as changes should reach them, and add gates\n(promotion: manual) where a change must wait for approval."
	return encode("", doc)
}

// namedByCluster reports whether every Argo CD object of every target is
// named "<the target's leaf>-<name>": one Argo CD holds several clusters'
// objects (ADR-006's ops cluster), and render.namePrefix names them so.
func namedByCluster(src *Source) bool {
	n := 0
	for _, t := range src.Targets {
		leaf := t.Path[len(t.Path)-1] + "-"
		for _, o := range t.Objects {
			if _, ok := sections[o.Kind]; !ok {
				continue
			}
			if !strings.HasPrefix(o.Name, leaf) || len(o.Name) == len(leaf) {
				return false
			}
			n++
		}
	}
	return n > 0
}

// byLeaf returns n with the target's leaf (its cluster's name) in string
// values, as a word (between characters other than letters and digits),
// written as the template that gives it, so that the targets' items have
// it in common: a label cluster: dev-01 becomes
// cluster: '{{ .Values.cluster.cluster }}', a file values.dev-01.yaml
// values.{{ .Values.cluster.cluster }}.yaml. Strings that hold a template
// already (escaped for Argo CD) are left alone.
func byLeaf(n *yaml.Node, leaf, tpl string) *yaml.Node {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.ShortTag() == "!!str" && !strings.Contains(n.Value, "{{") {
			if v := replaceWord(n.Value, leaf, tpl); v != n.Value {
				c := *n
				c.Value, c.Style = v, 0
				return &c
			}
		}
		return n
	case yaml.MappingNode, yaml.SequenceNode:
		c := *n
		c.Content = slices.Clone(n.Content)
		for i, k := range c.Content {
			if n.Kind == yaml.MappingNode && i%2 == 0 {
				continue // a key
			}
			c.Content[i] = byLeaf(k, leaf, tpl)
		}
		return &c
	}
	return n
}

// replaceWord replaces each occurrence of word in s that stands between
// characters other than letters and digits.
func replaceWord(s, word, with string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, word)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(word)
		if (i == 0 || !isWordByte(s[i-1])) && (end == len(s) || !isWordByte(s[end])) {
			b.WriteString(s[:i] + with)
		} else {
			b.WriteString(s[:end])
		}
		s = s[end:]
	}
}

func isWordByte(c byte) bool { return isAlnum(c) || c >= 'A' && c <= 'Z' }

// singular is the key of a dimension in a target's cluster values
// (fleet's rule: the name without its trailing s).
func singular(name string) string {
	if s := strings.TrimRight(name, "s"); s != "" {
		return s
	}
	return name
}

// nodesEqual compares two values as YAML data: mappings by their keys,
// whatever the order; scalars by tag and text; styles and comments aside.
func nodesEqual(a, b *yaml.Node) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case yaml.ScalarNode:
		return a.ShortTag() == b.ShortTag() && a.Value == b.Value
	case yaml.SequenceNode:
		return slices.EqualFunc(a.Content, b.Content, nodesEqual)
	case yaml.MappingNode:
		if len(a.Content) != len(b.Content) {
			return false
		}
		for i := 0; i+1 < len(a.Content); i += 2 {
			w := get(b, a.Content[i].Value)
			if w == nil || !nodesEqual(a.Content[i+1], w) {
				return false
			}
		}
		return true
	}
	return false
}
