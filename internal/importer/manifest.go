package importer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/strata-fleet/strata/internal/values"
)

// A document is one YAML document of a manifest file.
type document struct {
	file string
	node *yaml.Node // the document's content: a mapping for an object
}

func (d document) at() string { return fmt.Sprintf("%s:%d", d.file, d.node.Line) }

// yamlLine finds the line yaml.v3 names in its errors.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// readDocuments decodes every document of a YAML file. An error names the
// file and the line. A key written twice in one mapping is a fault of the
// file, reported: Argo CD (sigs.k8s.io/yaml) takes its last value, and so
// does the document returned.
func readDocuments(file string, data []byte) ([]document, []Finding, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []document
	var dups []Finding
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return docs, dups, nil
		}
		if err != nil {
			return nil, nil, yamlError(file, data, err)
		}
		if len(n.Content) == 0 || isNull(n.Content[0]) {
			continue // an empty document, as between two ---
		}
		docs = append(docs, document{file: file, node: lastKeys(file, resolveAliases(n.Content[0]), nil, &dups)})
	}
}

// lastKeys returns n with each mapping's keys once, at their last value,
// and reports each key written twice.
func lastKeys(file string, n *yaml.Node, path []string, dups *[]Finding) *yaml.Node {
	if n.Kind == yaml.SequenceNode {
		for i, c := range n.Content {
			n.Content[i] = lastKeys(file, c, path, dups)
		}
		return n
	}
	if n.Kind == yaml.ScalarNode {
		return yaml11(n, false)
	}
	if n.Kind != yaml.MappingNode {
		return n
	}
	for i := 0; i < len(n.Content); i += 2 {
		n.Content[i] = yaml11(n.Content[i], true)
	}
	last := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		last[n.Content[i].Value] = i
	}
	var out []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		p := append(slices.Clip(path), k.Value)
		if last[k.Value] != i {
			*dups = append(*dups, Finding{Field: strings.Join(p, "."), At: fmt.Sprintf("%s:%d", file, k.Line), Fault: true,
				Reason: fmt.Sprintf("written again at line %d: Argo CD reads the last one only, and so does the import", n.Content[last[k.Value]].Line)})
			continue
		}
		out = append(out, k, lastKeys(file, n.Content[i+1], p, dups))
	}
	c := *n
	c.Content = out
	return &c
}

// yamlError turns yaml.v3's error into one at the file and line, naming a
// merge-conflict marker when there is one: Argo CD cannot read the file
// either.
func yamlError(file string, data []byte, err error) error {
	e := &values.Error{Pos: values.Pos{File: file, Col: 1}, Msg: "not YAML: " + err.Error(),
		Hint: "Argo CD cannot read it either: fix it in the repository first"}
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		e.Pos.Line, _ = strconv.Atoi(m[1])
		e.Msg = "not YAML: " + m[2]
	}
	for i, line := range bytes.Split(data, []byte("\n")) {
		if bytes.HasPrefix(line, []byte("<<<<<<< ")) || bytes.HasPrefix(line, []byte(">>>>>>> ")) {
			e.Pos.Line = i + 1
			e.Msg = "a merge-conflict marker: " + values.Printable(string(bytes.TrimSpace(line)))
			break
		}
	}
	return e
}

// yaml11 returns plain scalar n as Argo CD reads it: sigs.k8s.io/yaml
// resolves plain scalars by YAML 1.1's rules (on, off, y, n, yes and no
// are booleans, 0777 is octal) and turns the result into JSON, where a
// key is a string ("true"). Quoted, block and tagged scalars are strings
// or what their tag says, as in YAML 1.2.
func yaml11(n *yaml.Node, key bool) *yaml.Node {
	if n.Kind != yaml.ScalarNode || n.Style != 0 {
		return n
	}
	js, err := sigsyaml.YAMLToJSON([]byte(n.Value))
	if err != nil || len(js) == 0 || js[0] == '"' || js[0] == '{' || js[0] == '[' {
		return n // a string, or not a scalar alone: as yaml.v3 read it
	}
	c := *n
	c.Value = string(js)
	switch {
	case key:
		c.Tag = "!!str"
	case c.Value == "true" || c.Value == "false":
		c.Tag = "!!bool"
	case c.Value == "null":
		c.Tag = "!!null"
	case strings.ContainsAny(c.Value, ".eE"):
		c.Tag = "!!float"
	default:
		c.Tag = "!!int"
	}
	if c.Tag == n.ShortTag() && !key && c.Tag != "!!int" && c.Tag != "!!float" {
		return n
	}
	return &c
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

// resolveAliases returns n with every alias replaced by a copy of what it
// names, so that the object stands alone when it is written elsewhere.
func resolveAliases(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode {
		return resolveAliases(n.Alias)
	}
	if len(n.Content) == 0 {
		if n.Anchor == "" {
			return n
		}
		c := *n
		c.Anchor = ""
		return &c
	}
	c := *n
	c.Anchor = ""
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, k := range n.Content {
		c.Content[i] = resolveAliases(k)
	}
	return &c
}

// get returns the value of key in mapping n, or nil.
func get(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// str returns the string value of key in mapping n, or "".
func str(n *yaml.Node, key string) string {
	if v := get(n, key); v != nil && v.Kind == yaml.ScalarNode && !isNull(v) {
		return v.Value
	}
	return ""
}

// objectOf reads a document as a Kubernetes object: its kind and name, or
// an error naming what is missing.
func objectOf(d document) (*Object, error) {
	if d.node.Kind != yaml.MappingNode {
		return nil, &values.Error{Pos: values.Pos{File: d.file, Line: d.node.Line, Col: d.node.Column}, Msg: "not a Kubernetes object: expected a mapping"}
	}
	kind, name := str(d.node, "kind"), str(get(d.node, "metadata"), "name")
	switch {
	case str(d.node, "apiVersion") == "" || kind == "":
		return nil, &values.Error{Pos: values.Pos{File: d.file, Line: d.node.Line, Col: d.node.Column}, Msg: "not a Kubernetes object: no apiVersion or kind"}
	case name == "":
		return nil, &values.Error{Pos: values.Pos{File: d.file, Line: d.node.Line, Col: d.node.Column}, Msg: kind + " without metadata.name"}
	}
	return &Object{Kind: kind, Name: name, At: d.at(), Doc: d.node, Written: d.node}, nil
}
