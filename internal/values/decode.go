package values

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// maxNodes bounds the nodes one document may expand to through aliases.
const maxNodes = 1 << 20

// Decode parses one YAML document. file names the source in positions. An
// empty document decodes to a Null value at line 0. Duplicate keys, several
// documents and alias bombs are errors; every error is an *Error.
func Decode(file string, data []byte) (*Value, error) {
	// The block decoder, when the text has no document marker (with one,
	// yaml.v3 may see a second, empty document where it sees none).
	if !bytes.HasPrefix(data, []byte("---")) && !bytes.Contains(data, []byte("\n---")) &&
		!bytes.HasPrefix(data, []byte("...")) && !bytes.Contains(data, []byte("\n...")) {
		if vs, ok := decodeBlock(file, data, "", nil); ok {
			if len(vs) == 0 {
				return &Value{Kind: Null, Text: "null", Pos: Pos{File: file}}, nil
			}
			return vs[0], nil
		}
	}
	return decodeYAML(file, data)
}

// decodeYAML is Decode by way of yaml.v3's node tree.
func decodeYAML(file string, data []byte) (*Value, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &Value{Kind: Null, Text: "null", Pos: Pos{File: file}}, nil
		}
		return nil, syntaxError(file, data, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &Error{Pos: Pos{File: file, Line: extra.Line, Col: extra.Column},
			Msg:  "expected one YAML document, found another one here",
			Hint: "this file holds one document: remove the --- separator and merge the documents"}
	} else if !errors.Is(err, io.EOF) {
		return nil, syntaxError(file, data, err)
	}
	d := decoder{file: file}
	if len(doc.Content) == 0 {
		return &Value{Kind: Null, Text: "null", Pos: Pos{File: file}}, nil
	}
	return d.node(doc.Content[0], nil)
}

var lineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntaxError turns a YAML parser error into an *Error at the line it
// names (the parser gives no column: the line's indentation stands in).
// Two errors the parser places badly are placed by looking at the text: a
// byte that is not UTF-8 (reported without a line) and a tab in
// indentation (reported at the line of the token before it).
func syntaxError(file string, data []byte, err error) *Error {
	msg := err.Error()
	hint := "fix the YAML near this line: indentation, quotes and brackets must match"
	if strings.Contains(msg, "UTF-8") {
		if e := notUTF8(file, data); e != nil {
			return e
		}
	}
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		if strings.Contains(m[2], "tab character") {
			line = tabIndented(data, line)
		}
		col := 1
		text := lineAt(data, line)
		indent := len(text) - len(strings.TrimLeft(text, " \t"))
		if i := strings.IndexByte(text[:indent], '\t'); i >= 0 {
			col, hint = i+1, "indent with spaces: YAML does not allow tabs in indentation"
		} else if indent < len(text) {
			col = indent + 1
		}
		return &Error{Pos: Pos{File: file, Line: line, Col: col}, Msg: "invalid YAML: " + m[2], Hint: hint}
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	return &Error{Pos: Pos{File: file, Line: 1, Col: 1}, Msg: "invalid YAML: " + msg, Hint: hint}
}

// notUTF8 reports the first byte of data that is not UTF-8, at its line
// and column (in characters), or returns nil when data is valid UTF-8.
func notUTF8(file string, data []byte) *Error {
	if utf8.Valid(data) {
		return nil
	}
	line, start := 1, 0
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			col := utf8.RuneCount(data[start:i]) + 1
			return &Error{Pos: Pos{File: file, Line: line, Col: col},
				Msg:  fmt.Sprintf("invalid YAML: byte 0x%02x is not UTF-8 text", data[i]),
				Hint: "save the file as UTF-8 (the text is probably in another encoding, such as Latin-1 or Windows-1252)"}
		}
		if r == '\n' {
			line, start = line+1, i+1
		}
		i += size
	}
	return nil
}

// tabIndented returns the first line from line on whose indentation holds
// a tab, or line when there is none.
func tabIndented(data []byte, line int) int {
	for n := line; ; n++ {
		text, ok := lineAtOK(data, n)
		if !ok {
			return line
		}
		if strings.Contains(text[:len(text)-len(strings.TrimLeft(text, " \t"))], "\t") {
			return n
		}
	}
}

// lineAt returns the 1-based line n of data, or "".
func lineAt(data []byte, n int) string {
	text, _ := lineAtOK(data, n)
	return text
}

// lineAtOK returns the 1-based line n of data and whether data has it.
func lineAtOK(data []byte, n int) (string, bool) {
	for i := 1; len(data) > 0; i++ {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		if i == n {
			return strings.TrimSuffix(string(line), "\r"), true
		}
		data = rest
	}
	return "", false
}

type decoder struct {
	file  string
	count int
	// mark and styles, when styles is not nil, record how each scalar whose
	// text contains mark was written (DecodeAllStyles).
	mark   string
	styles map[*Value]Style
	flow   int // depth of flow collections around the current node
	// expanding holds the anchored nodes whose aliases are being expanded,
	// to refuse an alias inside the node it refers to.
	expanding map[*yaml.Node]bool
}

func (d *decoder) pos(n *yaml.Node) Pos { return Pos{File: d.file, Line: n.Line, Col: n.Column} }

func (d *decoder) node(n *yaml.Node, path []string) (*Value, error) {
	d.count++
	if d.count > maxNodes {
		return nil, Errorf(d.pos(n), path, "document expands to more than %d nodes through aliases", maxNodes)
	}
	switch n.Kind {
	case yaml.AliasNode:
		if d.expanding[n.Alias] {
			return nil, Errorf(d.pos(n), path, "alias *%s refers to a node that contains it", n.Value)
		}
		if d.expanding == nil {
			d.expanding = map[*yaml.Node]bool{}
		}
		d.expanding[n.Alias] = true
		v, err := d.node(n.Alias, path)
		delete(d.expanding, n.Alias)
		if err != nil {
			return nil, err
		}
		return v, nil
	case yaml.ScalarNode:
		return d.scalar(n, path)
	case yaml.SequenceNode:
		if n.Style&yaml.FlowStyle != 0 {
			d.flow++
			defer func() { d.flow-- }()
		}
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
		if n.Style&yaml.FlowStyle != 0 {
			d.flow++
			defer func() { d.flow-- }()
		}
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
	if d.styles != nil && strings.Contains(n.Value, d.mark) {
		d.styles[v] = d.style(n)
	}
	return v, nil
}

// Style is how a scalar is written in a YAML document.
type Style uint8

// The styles of scalars. Tagged and InFlow take precedence over the others.
const (
	PlainStyle Style = iota
	SingleQuotedStyle
	DoubleQuotedStyle
	LiteralStyle
	FoldedStyle
	TaggedStyle // with an explicit tag (!!str ...)
	InFlowStyle // in a flow collection ([...] or {...})
)

func (d *decoder) style(n *yaml.Node) Style {
	switch {
	case n.Style&yaml.TaggedStyle != 0:
		return TaggedStyle
	case d.flow > 0:
		return InFlowStyle
	case n.Style&yaml.SingleQuotedStyle != 0:
		return SingleQuotedStyle
	case n.Style&yaml.DoubleQuotedStyle != 0:
		return DoubleQuotedStyle
	case n.Style&yaml.LiteralStyle != 0:
		return LiteralStyle
	case n.Style&yaml.FoldedStyle != 0:
		return FoldedStyle
	}
	return PlainStyle
}

// Plain is the value of a plain scalar (written without quotes) that reads
// as text: null, a boolean, a number or a string by YAML 1.1's rules.
func Plain(text string, pos Pos) *Value {
	v := &Value{Pos: pos}
	v.Kind, v.Text = resolve(text)
	return v
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
		v.KeyPos = append(v.KeyPos, d.pos(kn))
	}
	// Merge keys: explicit keys win over merged ones, earlier sources over later.
	for _, m := range merges {
		for i, k := range m.Keys {
			if _, ok := seen[k]; !ok {
				seen[k] = 0
				v.Keys = append(v.Keys, k)
				v.Vals = append(v.Vals, m.Vals[i])
				v.KeyPos = append(v.KeyPos, m.KeyPosAt(i))
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
				return nil, Errorf(it.Pos, path, "merge key << takes mappings, got %s", Article(it.Kind))
			}
		}
		return src.Items, nil
	}
	return nil, Errorf(src.Pos, path, "merge key << takes a mapping or a list of mappings, got %s", Article(src.Kind))
}

// DecodeAll parses a stream of YAML documents, skipping empty ones.
func DecodeAll(file string, data []byte) ([]*Value, error) {
	return decodeAll(file, data, "", nil)
}

// DecodeAllStyles is DecodeAll that also returns how each scalar whose
// text contains mark was written. A scalar that an alias repeats is decoded,
// and reported, once per occurrence.
func DecodeAllStyles(file string, data []byte, mark string) ([]*Value, map[*Value]Style, error) {
	styles := map[*Value]Style{}
	vs, err := decodeAll(file, data, mark, styles)
	return vs, styles, err
}

func decodeAll(file string, data []byte, mark string, styles map[*Value]Style) ([]*Value, error) {
	if vs, ok := decodeBlock(file, data, mark, styles); ok {
		return vs, nil
	}
	clear(styles) // what decodeBlock recorded before it gave up
	return decodeAllYAML(file, data, mark, styles)
}

// decodeAllYAML is decodeAll by way of yaml.v3's node tree.
func decodeAllYAML(file string, data []byte, mark string, styles map[*Value]Style) ([]*Value, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []*Value
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, syntaxError(file, data, err)
		}
		if len(doc.Content) == 0 {
			continue
		}
		d := decoder{file: file, mark: mark, styles: styles}
		v, err := d.node(doc.Content[0], nil)
		if err != nil {
			return nil, err
		}
		if v.Kind != Null {
			out = append(out, v)
		}
	}
}
