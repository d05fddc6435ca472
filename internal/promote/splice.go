package promote

import (
	"bytes"
	"fmt"
	"github.com/strata-fleet/strata/internal/yamledit"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/strata-fleet/strata/internal/values"
)

// The splicer edits values.yaml's text in place with a patch's content:
// each change is an edit of a byte range of the source, made while walking
// the patch's node tree alongside values.yaml's, applied from the end.
type edit struct {
	start, end int // byte offsets in the source
	text       string
	seq        int // the order edits were made in
}

// splice edits src (values.yaml) with the content of the patch in psrc.
func splice(src, psrc []byte) ([]byte, error) {
	vm, err := yamledit.DocMapping(src)
	if err != nil {
		return nil, err
	}
	pm, err := yamledit.DocMapping(psrc)
	if err != nil {
		return nil, err
	}
	if pm.Style&yaml.FlowStyle != 0 {
		return nil, fmt.Errorf("flow mapping")
	}
	s := &splicer{src: src, psrc: psrc, lines: yamledit.LineStarts(src), plines: yamledit.LineStarts(psrc)}
	if err := s.mapping(vm, pm, true); err != nil {
		return nil, err
	}
	// Edits apply from the end of the file. Insertions at one offset (the
	// end of a nested mapping is also the end of its parent) apply last
	// made first, so that the text ends up in the order it was made:
	// inner keys before outer ones.
	for i := range s.edits {
		s.edits[i].seq = i
	}
	sort.Slice(s.edits, func(i, j int) bool {
		a, b := s.edits[i], s.edits[j]
		if a.start != b.start {
			return a.start > b.start
		}
		return a.seq > b.seq
	})
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
		vk, vv := yamledit.Find(vm, pk.Value)
		switch {
		case vk != nil && vv.Kind == yaml.AliasNode:
			if err := s.overAlias(vk, vv, pv); err != nil {
				return err
			}
		case vk == nil:
			if err := s.insert(vm, pk, pv); err != nil {
				return err
			}
		case vv.Kind == yaml.MappingNode && pv.Kind == yaml.MappingNode && vv.Style&yaml.FlowStyle == 0 && pv.Style&yaml.FlowStyle == 0:
			if err := s.mapping(vv, pv, false); err != nil {
				return err
			}
		case yamledit.SingleLineScalar(vv) && yamledit.SingleLineScalar(pv):
			start := s.offset(vv.Line, vv.Column)
			end, err := yamledit.TokenEnd(s.src, start)
			if err != nil {
				return err
			}
			pstart := s.poffset(pv.Line, pv.Column)
			pend, err := yamledit.TokenEnd(s.psrc, pstart)
			if err != nil {
				return err
			}
			s.edits = append(s.edits, edit{start: start, end: end, text: string(s.psrc[pstart:pend])})
		default:
			// Rewrite the whole entry, which must own its lines.
			start := s.lines[vk.Line-1]
			if strings.TrimLeft(string(s.src[start:s.offset(vk.Line, vk.Column)]), " ") != "" {
				return fmt.Errorf("key %s does not start its line", vk.Value)
			}
			text, err := s.replacement(vk, vv, pk, pv)
			if err != nil {
				return err
			}
			s.edits = append(s.edits, edit{start: start, end: s.lineEnd(yamledit.LastLine(vv)), text: text})
		}
	}
	return nil
}

// overAlias merges the patch's mapping pv into the entry vk: *anchor
// without touching the anchored mapping (which other aliases share): the
// alias becomes a merge key, "<<: *anchor", followed by the patch's
// entries, which override the anchor's keys of the same name. A merge key
// is shallow, so a patch that changes part of a nested mapping gives other
// values than the merge; integrate's check refuses that result.
func (s *splicer) overAlias(vk, vv, pv *yaml.Node) error {
	if vv.Alias == nil || vv.Alias.Kind != yaml.MappingNode || pv.Kind != yaml.MappingNode || pv.Style&yaml.FlowStyle != 0 || vv.Line != vk.Line {
		return fmt.Errorf("alias *%s at line %d", vv.Value, vv.Line)
	}
	start := s.offset(vv.Line, vv.Column)
	end := s.lineEnd(vv.Line)
	if rest := strings.TrimSpace(string(s.src[start:end])); rest != "*"+vv.Value {
		return fmt.Errorf("alias *%s shares its line", vv.Value)
	}
	for start > 0 && s.src[start-1] == ' ' {
		start-- // no space left at the end of "key:"
	}
	indent := vk.Column - 1 + 2
	text := "\n" + strings.Repeat(" ", indent) + "<<: *" + vv.Value + "\n"
	for i := 0; i+1 < len(pv.Content); i += 2 {
		entry, ok := s.patchEntry(pv.Content[i], pv.Content[i+1], indent)
		if !ok {
			return fmt.Errorf("the patch's entry %s cannot be lifted out", pv.Content[i].Value)
		}
		text += entry
	}
	s.edits = append(s.edits, edit{start: start, end: end, text: text})
	return nil
}

// insert adds key: value at the end of the mapping vm: the patch's own
// lines for the entry (its quoting and comments kept), re-indented, or the
// entry encoded when those lines cannot be lifted out.
func (s *splicer) insert(vm, pk, pv *yaml.Node) error {
	at := s.lineEnd(yamledit.LastLine(vm.Content[len(vm.Content)-1]))
	text, ok := s.patchEntry(pk, pv, vm.Content[0].Column-1)
	if !ok {
		v, err := nodeValue(pv)
		if err != nil {
			return err
		}
		m := values.NewMap(values.Pos{})
		m.Set(pk.Value, v)
		text = yamledit.IndentLines(values.Encode(m), vm.Content[0].Column-1)
	}
	if at == len(s.src) && len(s.src) > 0 && s.src[len(s.src)-1] != '\n' {
		text = "\n" + text
	}
	s.edits = append(s.edits, edit{start: at, end: at, text: text})
	return nil
}

// patchEntry returns the patch's lines of the entry pk: pv, re-indented to
// indent columns. It fails for entries that do not own their lines (flow
// collections spanning lines, keys not at the start of their line).
func (s *splicer) patchEntry(pk, pv *yaml.Node, indent int) (string, bool) {
	if (pv.Kind == yaml.MappingNode || pv.Kind == yaml.SequenceNode) && pv.Style&yaml.FlowStyle != 0 && pv.Line != pk.Line {
		return "", false
	}
	if pv.Kind == yaml.AliasNode || pv.Anchor != "" {
		return "", false
	}
	first, last := pk.Line, yamledit.LastLine(pv)
	if first < 1 || last >= len(s.plines)+1 {
		return "", false
	}
	end := len(s.psrc)
	if last < len(s.plines) {
		end = s.plines[last]
	}
	from := pk.Column - 1
	pad := strings.Repeat(" ", indent)
	var b strings.Builder
	for _, line := range strings.SplitAfter(string(s.psrc[s.plines[first-1]:end]), "\n") {
		if line == "" {
			continue
		}
		if strings.TrimSpace(line) == "" {
			b.WriteString("\n")
			continue
		}
		if len(line) < from || strings.TrimLeft(line[:from], " ") != "" {
			return "", false
		}
		b.WriteString(pad)
		b.WriteString(line[from:])
	}
	out := b.String()
	if !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return out, true
}

// replacement returns the text of the entry vk: vv merged with pv, indented
// as vk. When the patch's value replaces the old one (a list, a scalar, a
// change of kind), it is the patch's own lines; when two mappings merge,
// the merged node tree encoded, which keeps the old mapping's style (flow
// or block) and the comments of both.
func (s *splicer) replacement(vk, vv, pk, pv *yaml.Node) (string, error) {
	indent := vk.Column - 1
	if vv.Kind != yaml.MappingNode || pv.Kind != yaml.MappingNode {
		if text, ok := s.patchEntry(pk, pv, indent); ok {
			return text, nil
		}
		v, err := nodeValue(pv)
		if err != nil {
			return "", err
		}
		m := values.NewMap(values.Pos{})
		m.Set(vk.Value, v)
		return yamledit.IndentLines(values.Encode(m), indent), nil
	}
	merged := cloneNode(vv)
	mergeNodes(merged, cloneNode(pv), false)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{vk, merged}}); err != nil {
		return "", err
	}
	return yamledit.IndentLines(buf.Bytes(), indent), nil
}
