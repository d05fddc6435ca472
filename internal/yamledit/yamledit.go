package yamledit

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Doc is YAML source text with its node tree.
type Doc struct {
	Src []byte
	// Root is the document's top node (a mapping, for the files strata
	// edits).
	Root  *yaml.Node
	lines []int
}

// Parse parses src, which must hold one document whose top node is a
// mapping.
func Parse(src []byte) (*Doc, error) {
	root, err := DocMapping(src)
	if err != nil {
		return nil, err
	}
	return &Doc{Src: src, Root: root, lines: LineStarts(src)}, nil
}

// DocMapping parses data and returns its top-level mapping node.
func DocMapping(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("not a mapping")
	}
	return doc.Content[0], nil
}

// LineStarts returns the byte offset of the start of each line of b.
func LineStarts(b []byte) []int {
	out := []int{0}
	for i, c := range b {
		if c == '\n' {
			out = append(out, i+1)
		}
	}
	return out
}

// Offset is the byte offset of a 1-based line and column.
func (d *Doc) Offset(line, col int) int { return d.lines[line-1] + col - 1 }

// Start is the byte offset where node n starts.
func (d *Doc) Start(n *yaml.Node) int { return d.Offset(n.Line, n.Column) }

// LineStart is the byte offset of the start of a 1-based line.
func (d *Doc) LineStart(line int) int { return d.lines[line-1] }

// LineEnd is the byte offset just past the end of a 1-based line (after its
// newline).
func (d *Doc) LineEnd(line int) int {
	if line < len(d.lines) {
		return d.lines[line]
	}
	return len(d.Src)
}

// ScalarEnd returns the end of the single-line scalar n; inFlow says that n
// is an item of a flow collection, where ',', ']' and '}' end a plain
// scalar.
func (d *Doc) ScalarEnd(n *yaml.Node, inFlow bool) (int, error) {
	if !SingleLineScalar(n) {
		return 0, fmt.Errorf("line %d: not a single-line scalar", n.Line)
	}
	start := d.Start(n)
	end, err := TokenEnd(d.Src, start)
	if err != nil || !inFlow || d.Src[start] == '"' || d.Src[start] == '\'' {
		return end, err
	}
	if i := bytes.IndexAny(d.Src[start:end], ",]}"); i >= 0 {
		end = start + len(bytes.TrimRight(d.Src[start:start+i], " \t"))
	}
	return end, nil
}

// FlowEnd returns the offset just past the flow collection (mapping or
// sequence) n, that is after its closing bracket.
func (d *Doc) FlowEnd(n *yaml.Node) (int, error) {
	start := d.Start(n)
	if start >= len(d.Src) || (d.Src[start] != '{' && d.Src[start] != '[') {
		return 0, fmt.Errorf("line %d: not a flow collection", n.Line)
	}
	depth := 0
	for i := start; i < len(d.Src); i++ {
		switch c := d.Src[i]; c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, nil
			}
		case '"', '\'':
			end, err := TokenEnd(d.Src, i)
			if err != nil {
				return 0, err
			}
			i = end - 1
		case '#':
			if i > 0 && (d.Src[i-1] == ' ' || d.Src[i-1] == '\t') {
				nl := bytes.IndexByte(d.Src[i:], '\n')
				if nl < 0 {
					return 0, fmt.Errorf("line %d: unterminated flow collection", n.Line)
				}
				i += nl
			}
		}
	}
	return 0, fmt.Errorf("line %d: unterminated flow collection", n.Line)
}

// Edit replaces Src[Start:End] with Text.
type Edit struct {
	Start, End int
	Text       string
}

// Apply returns a copy of src with the edits made; edits must not overlap.
func Apply(src []byte, edits []Edit) []byte {
	edits = append([]Edit(nil), edits...)
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].Start > edits[j].Start })
	out := append([]byte(nil), src...)
	for _, e := range edits {
		out = append(out[:e.Start], append([]byte(e.Text), out[e.End:]...)...)
	}
	return out
}

// Find returns the key and value nodes of key in the mapping m, or nils.
func Find(m *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

// SingleLineScalar reports whether n is a scalar written on one line (not a
// block scalar).
func SingleLineScalar(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 && !strings.Contains(n.Value, "\n")
}

// IsFlow reports whether n is a flow mapping or sequence ({...} or [...]).
func IsFlow(n *yaml.Node) bool {
	return (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) && n.Style&yaml.FlowStyle != 0
}

// TokenEnd returns the end of the scalar token starting at start.
func TokenEnd(b []byte, start int) (int, error) {
	if start >= len(b) {
		return 0, fmt.Errorf("scalar out of range")
	}
	switch b[start] {
	case '"':
		for i := start + 1; i < len(b) && b[i] != '\n'; i++ {
			if b[i] == '\\' {
				i++
			} else if b[i] == '"' {
				return i + 1, nil
			}
		}
		return 0, fmt.Errorf("unterminated double-quoted scalar")
	case '\'':
		for i := start + 1; i < len(b) && b[i] != '\n'; i++ {
			if b[i] == '\'' {
				if i+1 < len(b) && b[i+1] == '\'' {
					i++
					continue
				}
				return i + 1, nil
			}
		}
		return 0, fmt.Errorf("unterminated single-quoted scalar")
	}
	end := bytes.IndexByte(b[start:], '\n')
	if end < 0 {
		end = len(b) - start
	}
	line := string(b[start : start+end])
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	return start + len(strings.TrimRight(line, " \t\r")), nil
}

// LastLine is the last source line of node n.
func LastLine(n *yaml.Node) int {
	switch n.Kind {
	case yaml.MappingNode, yaml.SequenceNode:
		if n.Style&yaml.FlowStyle != 0 || len(n.Content) == 0 {
			return n.Line
		}
		return LastLine(n.Content[len(n.Content)-1])
	case yaml.ScalarNode:
		if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			return n.Line + strings.Count(strings.TrimRight(n.Value, "\n"), "\n") + 1
		}
	}
	return n.Line
}

// IndentLines indents every non-empty line of b by n spaces.
func IndentLines(b []byte, n int) string {
	pad := strings.Repeat(" ", n)
	lines := strings.SplitAfter(string(b), "\n")
	var sb strings.Builder
	for _, l := range lines {
		if l == "" {
			continue
		}
		if l != "\n" {
			sb.WriteString(pad)
		}
		sb.WriteString(l)
	}
	return sb.String()
}
