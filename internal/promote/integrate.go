package promote

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/values"
)

// integrate returns the new content of values.yaml with the patch's content
// merged in by the merge rules. It edits the text in place so that comments,
// key order, quoting and layout stay as they are: a changed scalar is
// replaced in its line (its comment kept), a changed list or mapping entry
// is rewritten, a new key is added at the end of its mapping. The result is
// checked to decode to the merged values; if the text cannot be edited in
// place, the file is re-encoded from yaml.v3's node tree, which keeps the
// comments but not every detail of layout.
func integrate(valuesFile *fleet.File, patchName string, patchData []byte) ([]byte, error) {
	old, err := valuesFile.Mapping("values.yaml")
	if err != nil {
		return nil, err
	}
	content, err := fleet.PatchContent(fleet.NewFile(patchName, patchData))
	if err != nil {
		return nil, err
	}
	want := values.Merge(old, content)
	check := func(out []byte) bool {
		got, err := values.Decode(valuesFile.Path, out)
		return err == nil && values.Equal(got, want)
	}
	if out, err := splice(valuesFile.Data, patchData); err == nil && check(out) {
		return out, nil
	}
	if out, err := reencode(valuesFile.Data, patchData); err == nil && check(out) {
		return out, nil
	}
	out := values.Encode(want)
	if !check(out) {
		return nil, fmt.Errorf("folding the patch into %s: the merged values do not encode faithfully", valuesFile.Path)
	}
	return out, nil
}

// docMapping parses data and returns its top-level mapping node.
func docMapping(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("not a mapping")
	}
	return doc.Content[0], nil
}

type edit struct {
	start, end int // byte offsets in the source
	text       string
}

// splice edits src (values.yaml) with the content of the patch in psrc.
func splice(src, psrc []byte) ([]byte, error) {
	vm, err := docMapping(src)
	if err != nil {
		return nil, err
	}
	pm, err := docMapping(psrc)
	if err != nil {
		return nil, err
	}
	s := &splicer{src: src, psrc: psrc, lines: lineStarts(src), plines: lineStarts(psrc)}
	if err := s.mapping(vm, pm, true); err != nil {
		return nil, err
	}
	sort.Slice(s.edits, func(i, j int) bool { return s.edits[i].start > s.edits[j].start })
	out := append([]byte(nil), src...)
	for _, e := range s.edits {
		out = append(out[:e.start], append([]byte(e.text), out[e.end:]...)...)
	}
	return out, nil
}

type splicer struct {
	src, psrc     []byte
	lines, plines []int
	edits         []edit
}

func lineStarts(b []byte) []int {
	out := []int{0}
	for i, c := range b {
		if c == '\n' {
			out = append(out, i+1)
		}
	}
	return out
}

func (s *splicer) offset(line, col int) int  { return s.lines[line-1] + col - 1 }
func (s *splicer) poffset(line, col int) int { return s.plines[line-1] + col - 1 }
func (s *splicer) lineEnd(line int) int {
	if line < len(s.lines) {
		return s.lines[line]
	}
	return len(s.src)
}

func (s *splicer) mapping(vm, pm *yaml.Node, top bool) error {
	if vm.Style&yaml.FlowStyle != 0 || len(vm.Content) == 0 {
		return fmt.Errorf("flow or empty mapping")
	}
	for i := 0; i+1 < len(pm.Content); i += 2 {
		pk, pv := pm.Content[i], pm.Content[i+1]
		if top && pk.Value == "metadata" {
			continue
		}
		vk, vv := find(vm, pk.Value)
		switch {
		case vk == nil:
			if err := s.insert(vm, pk, pv); err != nil {
				return err
			}
		case vv.Kind == yaml.MappingNode && pv.Kind == yaml.MappingNode && pv.Style&yaml.FlowStyle == 0:
			if err := s.mapping(vv, pv, false); err != nil {
				return err
			}
		case singleLineScalar(vv) && singleLineScalar(pv):
			start := s.offset(vv.Line, vv.Column)
			end, err := tokenEnd(s.src, start)
			if err != nil {
				return err
			}
			pstart := s.poffset(pv.Line, pv.Column)
			pend, err := tokenEnd(s.psrc, pstart)
			if err != nil {
				return err
			}
			s.edits = append(s.edits, edit{start, end, string(s.psrc[pstart:pend])})
		default:
			// Rewrite the whole entry with the merged value.
			merged, err := mergedEntry(vk, vv, pv)
			if err != nil {
				return err
			}
			s.edits = append(s.edits, edit{s.lines[vk.Line-1], s.lineEnd(lastLine(vv)), indentLines(merged, vk.Column-1)})
		}
	}
	return nil
}

// insert adds key: value at the end of the mapping vm.
func (s *splicer) insert(vm, pk, pv *yaml.Node) error {
	v, err := nodeValue(pv)
	if err != nil {
		return err
	}
	m := values.NewMap(values.Pos{})
	m.Set(pk.Value, v)
	at := s.lineEnd(lastLine(vm.Content[len(vm.Content)-1]))
	text := indentLines(values.Encode(m), vm.Content[0].Column-1)
	if at == len(s.src) && len(s.src) > 0 && s.src[len(s.src)-1] != '\n' {
		text = "\n" + text
	}
	s.edits = append(s.edits, edit{at, at, text})
	return nil
}

func find(m *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

func singleLineScalar(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 && !strings.Contains(n.Value, "\n")
}

// tokenEnd returns the end of the scalar token starting at start.
func tokenEnd(b []byte, start int) (int, error) {
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

// lastLine is the last source line of node n.
func lastLine(n *yaml.Node) int {
	switch n.Kind {
	case yaml.MappingNode, yaml.SequenceNode:
		if n.Style&yaml.FlowStyle != 0 || len(n.Content) == 0 {
			return n.Line
		}
		return lastLine(n.Content[len(n.Content)-1])
	case yaml.ScalarNode:
		if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			return n.Line + strings.Count(strings.TrimRight(n.Value, "\n"), "\n") + 1
		}
	}
	return n.Line
}

// mergedEntry encodes "key: merged value" for an entry rewritten whole.
func mergedEntry(vk, vv, pv *yaml.Node) ([]byte, error) {
	a, err := nodeValue(vv)
	if err != nil {
		return nil, err
	}
	b, err := nodeValue(pv)
	if err != nil {
		return nil, err
	}
	m := values.NewMap(values.Pos{})
	m.Set(vk.Value, values.Merge(a, b))
	return values.Encode(m), nil
}

// nodeValue converts a yaml.v3 node to a value.
func nodeValue(n *yaml.Node) (*values.Value, error) {
	out, err := yaml.Marshal(n)
	if err != nil {
		return nil, err
	}
	return values.Decode("", out)
}

func indentLines(b []byte, n int) string {
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

// reencode merges the patch into values.yaml's node tree (which keeps
// comments) and encodes it.
func reencode(src, psrc []byte) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	pm, err := docMapping(psrc)
	if err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("empty document")
	}
	mergeNodes(doc.Content[0], pm, true)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func mergeNodes(dst, src *yaml.Node, top bool) {
	for i := 0; i+1 < len(src.Content); i += 2 {
		k, v := src.Content[i], src.Content[i+1]
		if top && k.Value == "metadata" {
			continue
		}
		dk, dv := find(dst, k.Value)
		switch {
		case dk == nil:
			dst.Content = append(dst.Content, k, v)
		case dv.Kind == yaml.MappingNode && v.Kind == yaml.MappingNode:
			mergeNodes(dv, v, false)
		default:
			*dv = *v
		}
	}
}
