package values

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Most YAML that strata decodes is block YAML as encoders and templates
// write it: mappings and lists by indentation, one scalar per line, plain
// or quoted, and literal blocks. yaml.v3 decodes it at about 10 MB/s,
// which was a tenth of a large fleet's render (the distinct documents of
// the first template pass). decodeBlock decodes that subset directly, to
// exactly what the yaml.v3 way (decodeAll) gives: the same kinds and
// texts, positions (line and column, in characters), key positions and
// scalar styles. Anything outside the subset, including everything that
// is an error, returns false, and yaml.v3 decodes the text (and reports
// the errors): anchors, aliases, tags, flow collections other than [] and
// {}, folded blocks and literal blocks with an indentation indicator,
// scalars over several lines, escapes other than the common ones, merge
// keys, duplicate keys, tabs, carriage returns, and characters that
// yaml.v3 refuses or reads as line breaks. FuzzDecodeBlockAsYAMLv3
// compares the two ways.

// maxKeyLength is yaml.v3's bound on an implicit key (a longer one is an
// error there).
const maxKeyLength = 1024

// blockDecoder is decodeBlock's state: the lines of the text and the one
// it is at.
type blockDecoder struct {
	file   string
	lines  []string // without their line breaks
	i      int
	mark   string
	styles map[*Value]Style
	count  int
	nodes  []Value // allocated for the nodes to come (newNode)
	// keys, vals, keyPos and items are stacks of the entries of the
	// collections being decoded, each copied out once complete (growing a
	// slice per collection was a fifth of decoding's allocations).
	keys   []string
	vals   []*Value
	keyPos []Pos
	items  []*Value
}

// newNode returns a new node. Nodes are allocated a few at a time, about
// as many as lines remain (most lines make one): one allocation per node
// was a fifth of decoding. A document's nodes stay together, so a caller
// that keeps a few of them keeps their neighbours.
func (d *blockDecoder) newNode(kind Kind, text string, pos Pos) *Value {
	if len(d.nodes) == 0 {
		d.nodes = make([]Value, min(len(d.lines)-d.i+1, 256))
	}
	n := &d.nodes[0]
	d.nodes = d.nodes[1:]
	n.Kind, n.Text, n.Pos = kind, text, pos
	return n
}

// decodeBlock decodes a stream of documents as decodeAll does, or returns
// false when the text is not in the subset it knows.
func decodeBlock(file string, data []byte, mark string, styles map[*Value]Style) ([]*Value, bool) {
	if !blockText(data) {
		return nil, false
	}
	text := string(data)
	d := blockDecoder{file: file, lines: strings.Split(text, "\n"), mark: mark, styles: styles}
	var out []*Value
	for {
		d.skip()
		if d.i >= len(d.lines) {
			return out, true
		}
		if sep, ok := d.marker(); ok {
			if !sep {
				return nil, false
			}
			d.i++
			continue
		}
		v, ok := d.block(-1)
		if !ok {
			return nil, false
		}
		out = append(out, v)
		d.skip()
		if d.i < len(d.lines) {
			if sep, ok := d.marker(); !ok || !sep {
				return nil, false
			}
		}
	}
}

// DecodesDirectly reports whether DecodeAll decodes data without yaml.v3:
// data is in the subset the block decoder knows. For tests that make sure
// that what strata decodes most takes that way.
func DecodesDirectly(data []byte) bool {
	_, ok := decodeBlock("", data, "", nil)
	return ok
}

// blockText reports whether data holds only characters that the subset
// allows: printable ASCII, line feeds, and the characters beyond ASCII
// that yaml.v3 takes as printable and not as a line break.
func blockText(data []byte) bool {
	for i := 0; i < len(data); {
		c := data[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 || r < 0xa0 || r == 0x2028 || r == 0x2029 ||
			r >= 0xd800 && r < 0xe000 || r == 0xfeff || r == 0xfffe || r == 0xffff {
			return false
		}
		i += n
	}
	return true
}

// skip moves past blank lines and comment lines.
func (d *blockDecoder) skip() {
	for ; d.i < len(d.lines); d.i++ {
		line := d.lines[d.i]
		rest := line[indentOf(line):]
		if rest != "" && rest[0] != '#' {
			return
		}
	}
}

// marker reports whether the line is a document marker (--- or ... at the
// start of a line), and whether it is a plain "---" that only separates
// documents (the subset knows no other).
func (d *blockDecoder) marker() (sep, ok bool) {
	line := d.lines[d.i]
	if len(line) < 3 || line[:3] != "---" && line[:3] != "..." || len(line) > 3 && line[3] != ' ' {
		return false, false
	}
	return line[:3] == "---" && strings.TrimRight(line[3:], " ") == "", true
}

func indentOf(line string) int {
	n := 0
	for n < len(line) && line[n] == ' ' {
		n++
	}
	return n
}

// pos is the position of the byte at offset in the current line.
func (d *blockDecoder) pos(offset int) Pos {
	return Pos{File: d.file, Line: d.i + 1, Col: utf8.RuneCountInString(d.lines[d.i][:offset]) + 1}
}

// node counts a node against maxNodes, as the yaml.v3 way does.
func (d *blockDecoder) node() bool {
	d.count++
	return d.count <= maxNodes
}

// block decodes the mapping or list that starts on the current line, at
// its indentation; a scalar there is decoded when parent (the indentation
// of the collection it would be in) is not -1.
func (d *blockDecoder) block(parent int) (*Value, bool) {
	line := d.lines[d.i]
	n := indentOf(line)
	switch {
	case entry(line[n:]):
		return d.list(n)
	case d.isKey(n):
		return d.mapping(n)
	case parent >= 0:
		return d.scalar(n, parent)
	}
	return nil, false // a document that is a scalar
}

// entry reports whether text starts a list entry ("-" and a space or the
// end of the line).
func entry(text string) bool { return text == "-" || strings.HasPrefix(text, "- ") }

// list decodes the list whose entries start at offset n of the current
// and following lines.
func (d *blockDecoder) list(n int) (*Value, bool) {
	if !d.node() {
		return nil, false
	}
	v := d.newNode(List, "", d.pos(n))
	base := len(d.items)
	defer func() {
		v.Items = append(make([]*Value, 0, len(d.items)-base), d.items[base:]...)
		clear(d.items[base:])
		d.items = d.items[:base]
	}()
	for {
		d.skip()
		if d.i >= len(d.lines) {
			return v, true
		}
		line := d.lines[d.i]
		if _, ok := d.marker(); ok {
			return v, true
		}
		switch ind := indentOf(line); {
		case ind < n:
			return v, true
		case ind > n:
			return nil, false
		}
		if !entry(line[n:]) {
			return v, true // the next key of the mapping this list is the value of
		}
		at := n + 1 + indentOf(line[n+1:])
		var item *Value
		var ok bool
		switch rest := line[at:]; {
		case rest == "" || rest[0] == '#':
			item, ok = d.nested(n, d.pos(n+1), false)
		case entry(rest):
			return nil, false // a list in a list's entry on one line
		default:
			if d.isKey(at) {
				item, ok = d.mapping(at)
			} else {
				item, ok = d.scalar(at, n)
			}
		}
		if !ok {
			return nil, false
		}
		d.items = append(d.items, item)
	}
}

// nested decodes the value of an entry or key whose line ends after it:
// the block on the following lines indented further than n (or, for a key,
// a list at n itself), or an empty value at null.
func (d *blockDecoder) nested(n int, null Pos, key bool) (*Value, bool) {
	d.i++
	d.skip()
	if d.i < len(d.lines) {
		if _, marker := d.marker(); !marker {
			line := d.lines[d.i]
			switch ind := indentOf(line); {
			case ind > n:
				return d.block(n)
			case ind == n && key && entry(line[n:]):
				return d.list(n)
			}
		}
	}
	if !d.node() {
		return nil, false
	}
	return d.newNode(Null, "null", null), true
}

// key parses the key that starts at offset at of the current line: its
// text and style, and the offset of its ':'. ok is false when the text
// there is not a key the subset knows.
func (d *blockDecoder) key(at int) (text string, style Style, colon int, ok bool) {
	line := d.lines[d.i]
	rest := line[at:]
	end := 0
	switch {
	case rest == "":
		return "", 0, 0, false
	case rest[0] == '\'' || rest[0] == '"':
		var n int
		text, n, ok = quoted(rest)
		if !ok {
			return "", 0, 0, false
		}
		style = SingleQuotedStyle
		if rest[0] == '"' {
			style = DoubleQuotedStyle
		}
		end = n + indentOf(rest[n:])
		if end >= len(rest) || rest[end] != ':' {
			return "", 0, 0, false
		}
	default:
		if !PlainStart(rest) {
			return "", 0, 0, false
		}
		for end = 0; end < len(rest); end++ {
			if rest[end] == ':' && (end+1 == len(rest) || rest[end+1] == ' ') {
				break
			}
			if rest[end] == '#' && rest[end-1] == ' ' {
				return "", 0, 0, false // a comment before any ':'
			}
		}
		if end == len(rest) {
			return "", 0, 0, false
		}
		text, style = strings.TrimRight(rest[:end], " "), PlainStyle
	}
	// yaml.v3 bounds the distance from a key's start to its ':' (in
	// characters, spaces included); the bytes bound it from above.
	if end > maxKeyLength || end+1 < len(rest) && rest[end+1] != ' ' {
		return "", 0, 0, false
	}
	return text, style, at + end, true
}

// isKey reports whether a key the subset knows starts at offset at of the
// current line.
func (d *blockDecoder) isKey(at int) bool {
	_, _, _, ok := d.key(at)
	return ok
}

// mapping decodes the mapping whose keys start at offset n of the current
// and following lines.
func (d *blockDecoder) mapping(n int) (*Value, bool) {
	if !d.node() {
		return nil, false
	}
	v := d.newNode(Map, "", d.pos(n))
	base := len(d.keys)
	defer func() {
		v.Keys = slices.Clone(d.keys[base:])
		v.Vals = slices.Clone(d.vals[base:])
		v.KeyPos = slices.Clone(d.keyPos[base:])
		clear(d.vals[base:])
		d.keys, d.vals, d.keyPos = d.keys[:base], d.vals[:base], d.keyPos[:base]
	}()
	var seen map[string]bool // the keys, once there are many
	for first := true; ; first = false {
		if !first {
			d.skip()
			if d.i >= len(d.lines) {
				return v, true
			}
			if _, ok := d.marker(); ok {
				return v, true
			}
			line := d.lines[d.i]
			switch ind := indentOf(line); {
			case ind < n:
				return v, true
			case ind > n:
				return nil, false
			}
		}
		text, style, colon, ok := d.key(n)
		if !ok || style == PlainStyle && text == "<<" {
			return nil, false
		}
		keyPos := d.pos(n)
		if d.styles != nil && strings.Contains(text, d.mark) {
			text = d.value(text, style, keyPos).Text // its style recorded, as the yaml.v3 way does
		} else if style == PlainStyle {
			_, text = resolve(text) // as value makes it, without the node
		}
		if len(d.keys)-base == 16 {
			seen = make(map[string]bool)
			for _, k := range d.keys[base:] {
				seen[k] = true
			}
		}
		if seen[text] || seen == nil && slices.Contains(d.keys[base:], text) {
			return nil, false // a duplicate key: the yaml.v3 way reports it
		}
		if seen != nil {
			seen[text] = true
		}
		line := d.lines[d.i]
		at := colon + 1 + indentOf(line[colon+1:])
		var val *Value
		if at == len(line) || line[at] == '#' {
			val, ok = d.nested(n, d.pos(colon+1), true)
		} else {
			val, ok = d.scalar(at, n)
		}
		if !ok {
			return nil, false
		}
		d.keys = append(d.keys, text)
		d.vals = append(d.vals, val)
		d.keyPos = append(d.keyPos, keyPos)
	}
}

// value is the scalar written as text in style at pos, as the yaml.v3
// way makes it, with its style recorded when its text holds the mark.
func (d *blockDecoder) value(text string, style Style, pos Pos) *Value {
	v := d.newNode(String, text, pos)
	if style == PlainStyle {
		v.Kind, v.Text = resolve(text)
	}
	if d.styles != nil && strings.Contains(text, d.mark) {
		d.styles[v] = style
	}
	return v
}

// scalar decodes the value that starts at offset at of the current line,
// in a collection indented by n: a plain or quoted scalar, [] or {}, or a
// literal block on the following lines. It moves past the lines it reads.
func (d *blockDecoder) scalar(at, n int) (*Value, bool) {
	if !d.node() {
		return nil, false
	}
	line := d.lines[d.i]
	rest := line[at:]
	pos := d.pos(at)
	var v *Value
	switch rest[0] {
	case '\'', '"':
		text, end, ok := quoted(rest)
		if !ok || !comment(rest[end:]) {
			return nil, false
		}
		style := SingleQuotedStyle
		if rest[0] == '"' {
			style = DoubleQuotedStyle
		}
		v = d.value(text, style, pos)
	case '[', '{':
		if len(rest) < 2 || rest[1] != rest[0]+2 || !comment(rest[2:]) { // [] or {}
			return nil, false
		}
		v = d.newNode(Map, "", pos)
		if rest[0] == '[' {
			v.Kind, v.Items = List, []*Value{} // as the yaml.v3 way makes it
		}
	case '|':
		return d.literal(rest, n, pos)
	default:
		if !PlainStart(rest) {
			return nil, false
		}
		end := len(rest)
		for j := 1; j < len(rest); j++ {
			if rest[j] == '#' && rest[j-1] == ' ' {
				end = j
				break
			}
			if rest[j] == ':' && (j+1 == len(rest) || rest[j+1] == ' ') {
				return nil, false // a mapping where a scalar should be: an error
			}
		}
		v = d.value(strings.TrimRight(rest[:end], " "), PlainStyle, pos)
	}
	d.i++
	return v, true
}

// PlainStart reports whether a plain scalar (one without quotes) may start
// as text does: not with an indicator, but "-", "?" and ":" may start one
// before a character other than a space. text is not empty.
func PlainStart(text string) bool {
	switch text[0] {
	case '-', '?', ':':
		return len(text) > 1 && text[1] != ' '
	case ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		return false
	}
	return true
}

// comment reports whether text, after a scalar, holds only spaces and a
// comment.
func comment(text string) bool {
	n := indentOf(text)
	return n == len(text) || n > 0 && text[n] == '#'
}

// quoted decodes the single- or double-quoted scalar at the start of text,
// which must end on its line: its value and the length of its text.
func quoted(text string) (string, int, bool) {
	q := text[0]
	for j := 1; j < len(text); j++ {
		switch c := text[j]; {
		case c == q && (q == '"' || j+1 == len(text) || text[j+1] != '\''):
			return text[1:j], j + 1, true
		case c == q || c == '\\' && q == '"':
			return unescape(text)
		}
	}
	return "", 0, false // the scalar goes on to the next line
}

// unescape is quoted for a scalar with escapes: a doubled quote in single
// quotes, and in double quotes the escapes the subset knows.
func unescape(text string) (string, int, bool) {
	q := text[0]
	var b strings.Builder
	for j := 1; j < len(text); j++ {
		c := text[j]
		switch {
		case c == '\'' && q == '\'' && j+1 < len(text) && text[j+1] == '\'':
			b.WriteByte('\'')
			j++
		case c == q:
			return b.String(), j + 1, true
		case c == '\\' && q == '"':
			if j+1 == len(text) {
				return "", 0, false
			}
			e := escaped(text[j+1])
			if e < 0 {
				return "", 0, false
			}
			b.WriteByte(byte(e))
			j++
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}

// escaped is the character that a backslash and c stand for in double
// quotes, or -1 for an escape the subset leaves to yaml.v3.
func escaped(c byte) int {
	switch c {
	case '\\', '"', ' ':
		return int(c)
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	case '0':
		return 0
	}
	return -1
}

// literal decodes a literal block scalar whose header "|", "|-" or "|+"
// starts text, in a collection indented by n, at pos: its lines follow,
// indented further than n. It moves past them.
func (d *blockDecoder) literal(text string, n int, pos Pos) (*Value, bool) {
	chomp := byte(0)
	header := 1
	if len(text) > 1 && (text[1] == '-' || text[1] == '+') {
		chomp, header = text[1], 2
	}
	if !comment(text[header:]) {
		return nil, false // an indentation indicator or more on the line
	}
	// The block's lines: up to the first line indented no further than n
	// that is not blank. Its indentation is the first line's that is not
	// blank; a blank line before it indented further is left to yaml.v3.
	start := d.i + 1
	ind, maxBlank := -1, 0
	end := start
	for ; end < len(d.lines); end++ {
		line := d.lines[end]
		k := indentOf(line)
		if k == len(line) {
			if ind < 0 {
				maxBlank = max(maxBlank, k)
			}
			continue
		}
		if ind < 0 {
			if k <= n || k < maxBlank {
				return nil, false // an empty block, or one yaml.v3 reads otherwise
			}
			ind = k
		} else if k < ind {
			break
		}
	}
	if ind < 0 {
		return nil, false
	}
	// Trailing blank lines belong to the block: chomping decides what they
	// add.
	last := end
	for last > start && indentOf(d.lines[last-1]) == len(d.lines[last-1]) {
		last--
	}
	var b strings.Builder
	for j := start; j < last; j++ {
		if j > start {
			b.WriteByte('\n')
		}
		line := d.lines[j]
		if indentOf(line) == len(line) {
			if len(line) > ind {
				return nil, false // spaces beyond the indentation in a blank line
			}
			continue
		}
		b.WriteString(line[ind:])
	}
	for j := last; j < end; j++ {
		if len(d.lines[j]) > ind {
			return nil, false
		}
	}
	// The line breaks after the last line with text: the one that ends it
	// and one per blank line (the text's last line, when empty, is no line).
	breaks := end - last
	if end < len(d.lines) {
		breaks++
	}
	switch chomp {
	case 0:
		if breaks > 0 {
			b.WriteByte('\n')
		}
	case '+':
		b.WriteString(strings.Repeat("\n", breaks))
	}
	d.i = end
	return d.value(b.String(), LiteralStyle, pos), true
}
