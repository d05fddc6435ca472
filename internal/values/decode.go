package values

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strconv"

	"gopkg.in/yaml.v3"
)

// maxNodes bounds the nodes one document may expand to through aliases.
const maxNodes = 1 << 20

// Decode parses one YAML document. file names the source in positions. An
// empty document decodes to a Null value at line 0. Duplicate keys, several
// documents and alias bombs are errors; every error is an *Error.
func Decode(file string, data []byte) (*Value, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &Value{Kind: Null, Text: "null", Pos: Pos{File: file}}, nil
		}
		return nil, syntaxError(file, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, Errorf(Pos{File: file, Line: extra.Line, Col: extra.Column}, nil,
			"expected one YAML document, found another one here")
	} else if !errors.Is(err, io.EOF) {
		return nil, syntaxError(file, err)
	}
	d := decoder{file: file}
	if len(doc.Content) == 0 {
		return &Value{Kind: Null, Text: "null", Pos: Pos{File: file}}, nil
	}
	return d.node(doc.Content[0], nil)
}

var lineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

func syntaxError(file string, err error) *Error {
	msg := err.Error()
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return Errorf(Pos{File: file, Line: line, Col: 1}, nil, "invalid YAML: %s", m[2])
	}
	if len(msg) > 6 && msg[:6] == "yaml: " {
		msg = msg[6:]
	}
	return Errorf(Pos{File: file}, nil, "invalid YAML: %s", msg)
}

type decoder struct {
	file  string
	count int
}

func (d *decoder) pos(n *yaml.Node) Pos { return Pos{File: d.file, Line: n.Line, Col: n.Column} }

func (d *decoder) node(n *yaml.Node, path []string) (*Value, error) {
	d.count++
	if d.count > maxNodes {
		return nil, Errorf(d.pos(n), path, "document expands to more than %d nodes through aliases", maxNodes)
	}
	switch n.Kind {
	case yaml.AliasNode:
		v, err := d.node(n.Alias, path)
		if err != nil {
			return nil, err
		}
		return v, nil
	case yaml.ScalarNode:
		return d.scalar(n, path)
	case yaml.SequenceNode:
		v := &Value{Kind: List, Pos: d.pos(n), Items: make([]*Value, 0, len(n.Content))}
		for i, c := range n.Content {
			item, err := d.node(c, append(path[:len(path):len(path)], strconv.Itoa(i)))
			if err != nil {
				return nil, err
			}
			v.Items = append(v.Items, item)
		}
		return v, nil
	case yaml.MappingNode:
		return d.mapping(n, path)
	}
	return nil, Errorf(d.pos(n), path, "unsupported YAML node")
}

func (d *decoder) scalar(n *yaml.Node, path []string) (*Value, error) {
	v := &Value{Pos: d.pos(n)}
	quoted := n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0
	tagged := n.Style&yaml.TaggedStyle != 0
	switch {
	case tagged && (n.Tag == "!!str" || n.Tag == "tag:yaml.org,2002:str"):
		v.Kind, v.Text = String, n.Value
	case tagged && n.Tag == "!!binary":
		v.Kind, v.Text = String, n.Value
	case quoted:
		v.Kind, v.Text = String, n.Value
	default:
		v.Kind, v.Text = resolve(n.Value)
		if tagged {
			want := map[string]Kind{"!!int": Int, "!!float": Float, "!!bool": Bool, "!!null": Null}[n.Tag]
			switch {
			case want == Float && v.Kind == Int:
				f, _ := v.Float()
				v.Kind, v.Text = Float, FormatFloat(f)
			case want != v.Kind && want != 0 || (want == 0 && n.Tag == "!!null" && v.Kind != Null):
				return nil, Errorf(v.Pos, path, "value %q is not a valid %s", n.Value, n.Tag)
			}
		}
	}
	return v, nil
}

func (d *decoder) mapping(n *yaml.Node, path []string) (*Value, error) {
	v := &Value{Kind: Map, Pos: d.pos(n)}
	seen := make(map[string]int, len(n.Content)/2)
	var merges []*Value
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		if kn.Kind == yaml.ScalarNode && kn.Value == "<<" && kn.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 {
			m, err := d.mergeSources(vn, path)
			if err != nil {
				return nil, err
			}
			merges = append(merges, m...)
			continue
		}
		if kn.Kind != yaml.ScalarNode {
			return nil, Errorf(d.pos(kn), path, "mapping keys must be scalars")
		}
		kv, err := d.scalar(kn, path)
		if err != nil {
			return nil, err
		}
		key := kv.Text
		kpath := append(path[:len(path):len(path)], key)
		if line, dup := seen[key]; dup {
			return nil, &Error{Pos: d.pos(kn), Path: kpath,
				Msg:  "duplicate key (first defined at line " + strconv.Itoa(line) + ")",
				Hint: "a key may appear once in a mapping: remove or merge one of them"}
		}
		seen[key] = kn.Line
		val, err := d.node(vn, kpath)
		if err != nil {
			return nil, err
		}
		v.Keys = append(v.Keys, key)
		v.Vals = append(v.Vals, val)
	}
	// Merge keys: explicit keys win over merged ones, earlier sources over later.
	for _, m := range merges {
		for i, k := range m.Keys {
			if _, ok := seen[k]; !ok {
				seen[k] = 0
				v.Keys = append(v.Keys, k)
				v.Vals = append(v.Vals, m.Vals[i])
			}
		}
	}
	return v, nil
}

func (d *decoder) mergeSources(n *yaml.Node, path []string) ([]*Value, error) {
	src, err := d.node(n, path)
	if err != nil {
		return nil, err
	}
	switch src.Kind {
	case Map:
		return []*Value{src}, nil
	case List:
		for _, it := range src.Items {
			if it.Kind != Map {
				return nil, Errorf(it.Pos, path, "merge key << takes mappings, got %s", article(it.Kind))
			}
		}
		return src.Items, nil
	}
	return nil, Errorf(src.Pos, path, "merge key << takes a mapping or a list of mappings, got %s", article(src.Kind))
}

// DecodeAll parses a stream of YAML documents, skipping empty ones.
func DecodeAll(file string, data []byte) ([]*Value, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []*Value
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, syntaxError(file, err)
		}
		if len(doc.Content) == 0 {
			continue
		}
		d := decoder{file: file}
		v, err := d.node(doc.Content[0], nil)
		if err != nil {
			return nil, err
		}
		if v.Kind != Null {
			out = append(out, v)
		}
	}
}
