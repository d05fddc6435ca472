package render

import (
	"strconv"
	"strings"
	"text/template/parse"
	"unicode/utf8"

	"github.com/strata-fleet/strata/internal/memo"
	"github.com/strata-fleet/strata/internal/values"
)

// Pass 2 renders pass 1's output again as a template, and the result is
// YAML to decode and encode: targets differ there mostly by the few scalars
// that name their cluster or region, so most distinct final documents come
// from far fewer distinct pass-1 documents. A pass-1 document whose template
// actions are each inside a scalar is decoded once, with each action
// replaced by a placeholder, and encoded around those scalars (its holes);
// each target then runs only the actions through Helm's engine (or, for
// the plain references to values most are, without it: direct.go) and
// writes their results into the holes.
//
// This gives the output that rendering and decoding the whole text gives
// only when the action results cannot change the YAML around them, so a
// document is taken this way only when:
//
//   - its actions form straight-line template code (no if, range, define
//     or comment), each inside one scalar value (with the whitespace it
//     trims), not a key, a tag or a flow collection;
//   - each result, at each target, reads back as itself where it lands: no
//     quote of its scalar's style, no line break or control character, no
//     leading or trailing space, and in a plain scalar nothing that would
//     start a comment, a mapping or another node.
//
// Anything else, including every error, goes the general way
// (passTwoGeneral renders and decodes the whole text), which is also what
// reports errors.

// Placeholders are private-use characters around the action's index.
const (
	holeOpen  = "\uE000"
	holeClose = "\uE001"
	// actionSep separates the results of the actions run together.
	actionSep = "\x00"
)

// docPlan is a distinct pass-1 document prepared for pass 2.
type docPlan struct {
	ok      bool     // false: this document goes the general way
	actions []string // its template actions, in order
	// direct are the actions as direct.go evaluates them, or nil when one
	// of them needs Helm's engine.
	direct []direct
	docs   []planDoc
}

// planDoc is one YAML document of a docPlan, encoded around its holes.
type planDoc struct {
	pieces []string // the text around the holes: pieces[0] hole pieces[1]...
	at     []int    // which of holes each hole of the text is
	holes  []hole
	// name and nameKind are metadata.name's text and kind (Null when it is
	// missing), unless it is a hole (nameAt, else -1).
	name     string
	nameKind values.Kind
	nameAt   int
}

// hole is a scalar holding placeholders. A plan keeps no node of the
// decoded document (they are allocated together, and would all stay).
type hole struct {
	pos    values.Pos
	style  values.Style
	indent int
	parts  []string // the text around the placeholders
	acts   []int    // the action of each placeholder, len(parts)-1
}

// planCache holds a docPlan per distinct pass-1 document while targets use
// it (package memo).
type planCache struct{ m memo.Table[string, *docPlan] }

func (c *planCache) get(file, text string) *docPlan {
	if p, ok := c.m.Get(text); ok {
		return p
	}
	text = strings.Clone(text) // not the target's whole pass-1 output it is part of
	p := newDocPlan(file, text)
	c.m.Put(text, p)
	return p
}

// newDocPlan prepares a pass-1 document, or returns a plan that is not ok.
func newDocPlan(file, text string) *docPlan {
	bad := &docPlan{}
	if strings.Contains(text, holeOpen) || strings.Contains(text, holeClose) ||
		strings.Contains(text, actionSep) || strings.Contains(text, "<no value>") {
		return bad
	}
	spans := actionSpans(text)
	if spans == nil {
		return bad
	}
	nodes := straightLine(text, spans)
	if nodes == nil {
		return bad
	}
	p := &docPlan{ok: true, direct: directActions(nodes)}
	for _, s := range spans {
		p.actions = append(p.actions, text[s[0]:s[1]])
	}
	vs, styles, err := values.DecodeAllStyles(file, withHoles(text, spans), holeOpen)
	if err != nil {
		return bad
	}
	seen := make([]bool, len(spans))
	for _, v := range vs {
		d, ok := newPlanDoc(v, styles, seen)
		if !ok {
			return bad
		}
		p.docs = append(p.docs, d)
	}
	for _, s := range seen {
		if !s { // in a key or a comment
			return bad
		}
	}
	return p
}

// withHoles is text with a placeholder in place of each action.
func withHoles(text string, spans [][2]int) []byte {
	var b strings.Builder
	last := 0
	for i, s := range spans {
		b.WriteString(text[last:s[0]])
		b.WriteString(holeOpen + strconv.Itoa(i) + holeClose)
		last = s[1]
	}
	b.WriteString(text[last:])
	return []byte(b.String())
}

func newPlanDoc(v *values.Value, styles map[*values.Value]values.Style, seen []bool) (planDoc, bool) {
	d := planDoc{nameAt: -1}
	if v.Kind != values.Map {
		return d, false
	}
	index := map[*values.Value]int{}
	ok := true
	var walk func(*values.Value)
	walk = func(n *values.Value) {
		for _, c := range n.Vals {
			walk(c)
		}
		for _, c := range n.Items {
			walk(c)
		}
		style, marked := styles[n]
		if _, dup := index[n]; !marked || dup || !ok {
			return // no placeholder, or a scalar a merge key repeats
		}
		h, good := newHole(n, style, seen)
		ok = ok && good
		index[n] = len(d.holes)
		d.holes = append(d.holes, h)
	}
	walk(v)
	if !ok {
		return d, false
	}
	holes := make(map[*values.Value]bool, len(index))
	for leaf := range index {
		holes[leaf] = true
	}
	var at []values.Hole
	d.pieces, at = values.EncodeAround(v, holes)
	for _, h := range at {
		i := index[h.V]
		d.holes[i].indent = h.Indent
		d.at = append(d.at, i)
	}
	d.nameKind = values.Null
	if name := v.Lookup("metadata", "name"); name != nil {
		d.name, d.nameKind = name.Text, name.Kind
		if i, ok := index[name]; ok {
			d.nameAt = i
		}
	}
	return d, true
}

// newHole cuts a scalar's text at its placeholders, marking their actions
// seen. It returns false for a style results cannot be written into, or
// placeholders that are not each of a distinct action.
func newHole(v *values.Value, style values.Style, seen []bool) (hole, bool) {
	h := hole{pos: v.Pos, style: style}
	if style == values.TaggedStyle || style == values.InFlowStyle {
		return h, false
	}
	rest := v.Text
	for {
		i := strings.Index(rest, holeOpen)
		if i < 0 {
			break
		}
		j := strings.Index(rest[i:], holeClose)
		if j < 0 {
			return h, false
		}
		n, err := strconv.Atoi(rest[i+len(holeOpen) : i+j])
		if err != nil || n < 0 || n >= len(seen) || seen[n] {
			return h, false
		}
		seen[n] = true
		h.parts = append(h.parts, rest[:i])
		h.acts = append(h.acts, n)
		rest = rest[i+j+len(holeClose):]
	}
	h.parts = append(h.parts, rest)
	return h, true
}

// actionSpans returns the byte ranges of the template actions of text, with
// the whitespace their trim markers ("{{- ", " -}}") remove, or nil when
// an action is not closed.
func actionSpans(text string) [][2]int {
	var spans [][2]int
	for i := 0; ; {
		j := strings.Index(text[i:], "{{")
		if j < 0 {
			return spans
		}
		start := i + j
		end := actionEnd(text, start+2)
		if end < 0 {
			return nil
		}
		if len(text) > start+3 && text[start+2] == '-' && isSpace(text[start+3]) {
			for start > i && isSpace(text[start-1]) {
				start--
			}
		}
		if end-4 > start && text[end-3] == '-' && isSpace(text[end-4]) {
			for end < len(text) && isSpace(text[end]) {
				end++
			}
		}
		spans = append(spans, [2]int{start, end})
		i = end
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// actionEnd returns the index just after the "}}" closing the action whose
// body starts at i, skipping quoted strings, or -1.
func actionEnd(text string, i int) int {
	for i < len(text) {
		switch c := text[i]; c {
		case '"', '\'':
			for i++; i < len(text) && text[i] != c; i++ {
				if text[i] == '\\' {
					i++
				}
			}
		case '`':
			for i++; i < len(text) && text[i] != '`'; i++ {
			}
		case '}':
			if strings.HasPrefix(text[i:], "}}") {
				return i + 2
			}
		}
		i++
	}
	return -1
}

// straightLine returns the actions of text, as Go's template parser reads
// them, when those at spans are its whole template code; else nil.
func straightLine(text string, spans [][2]int) []*parse.ActionNode {
	t := parse.New("pass2")
	t.Mode = parse.SkipFuncCheck
	if _, err := t.Parse(text, "{{", "}}", map[string]*parse.Tree{}); err != nil || t.Root == nil {
		return nil
	}
	// The text between the actions must be exactly the parser's text nodes,
	// and every other node an action.
	var want []string
	last := 0
	for _, s := range spans {
		if s[0] > last {
			want = append(want, text[last:s[0]])
		}
		last = s[1]
	}
	if last < len(text) {
		want = append(want, text[last:])
	}
	actions := make([]*parse.ActionNode, 0, len(spans))
	for _, n := range t.Root.Nodes {
		switch n := n.(type) {
		case *parse.TextNode:
			if len(want) == 0 || string(n.Text) != want[0] {
				return nil
			}
			want = want[1:]
		case *parse.ActionNode:
			actions = append(actions, n)
		default:
			return nil
		}
	}
	if len(want) != 0 || len(actions) != len(spans) {
		return nil
	}
	return actions
}

// passTwoHoles renders pass 2 of a target the way described above. It
// returns false when the target must go the general way.
func (r *Renderer) passTwoHoles(file, manifest string, vals *values.Value, release string, b *budget) ([]renderedDoc, bool) {
	parts := splitDocuments(manifest)
	plans := make([]*docPlan, len(parts))
	var actions []string
	for i, part := range parts {
		if !strings.Contains(part, "{{") {
			continue
		}
		p := r.plans.get(file, part)
		if !p.ok {
			return nil, false
		}
		plans[i] = p
		actions = append(actions, p.actions...)
	}
	results, ok := directResults(plans, len(actions), vals, r.strict())
	if !ok && len(actions) > 0 {
		out, err := renderText(strings.Join(actions, actionSep), vals, release, true, r.strict(), b)
		if err != nil {
			return nil, false
		}
		results = strings.Split(out, actionSep)
		if len(results) != len(actions) {
			return nil, false
		}
	}
	var docs []renderedDoc
	k := 0
	for i, part := range parts {
		p := plans[i]
		if p == nil {
			ds, err := r.docs.decode(file, strings.ReplaceAll(part, "<no value>", ""))
			if err != nil {
				return nil, false
			}
			docs = append(docs, ds...)
			continue
		}
		for _, d := range p.docs {
			rd, ok := d.fill(results[k:])
			if !ok {
				return nil, false
			}
			docs = append(docs, rd)
		}
		k += len(p.actions)
	}
	return docs, true
}

// fill writes the results of a document's actions (numbered from the
// document's first) into its holes.
func (d *planDoc) fill(results []string) (renderedDoc, bool) {
	vals := make([]*values.Value, len(d.holes))
	for i, h := range d.holes {
		var b strings.Builder
		for j, part := range h.parts {
			b.WriteString(part)
			if j < len(h.acts) {
				r, ok := fitted(results[h.acts[j]], h.style)
				if !ok {
					return renderedDoc{}, false
				}
				b.WriteString(r)
			}
		}
		text := b.String()
		if h.style == values.PlainStyle {
			if !plainFits(text) {
				return renderedDoc{}, false
			}
			vals[i] = values.Plain(text, h.pos)
		} else {
			vals[i] = values.NewString(text, h.pos)
		}
	}
	size := 0 // the scalars' texts and a little for their quotes
	for _, h := range d.at {
		size += len(vals[h].Text) + 4
	}
	for _, piece := range d.pieces {
		size += len(piece)
	}
	data := make([]byte, 0, size)
	for i, piece := range d.pieces {
		data = append(data, piece...)
		if i < len(d.at) {
			h := d.at[i]
			data = values.AppendScalar(data, vals[h], d.holes[h].indent)
		}
	}
	rd := renderedDoc{data: data, name: d.name, nameKind: d.nameKind}
	if d.nameAt >= 0 {
		rd.name, rd.nameKind = vals[d.nameAt].Text, vals[d.nameAt].Kind
	}
	return rd, true
}

// fitted returns what an action's result reads back as inside a scalar of
// the given style, or false when that is not just the result: a quoted
// scalar folds a line break and the indentation after it into a space (as
// long-line folding of pass 1's toYaml leaves them inside actions).
func fitted(r string, style values.Style) (string, bool) {
	if strings.Contains(r, "\n") && (style == values.SingleQuotedStyle || style == values.DoubleQuotedStyle) {
		lines := strings.Split(r, "\n")
		for i, line := range lines {
			trimmed := strings.Trim(line, " \t")
			if i > 0 && (trimmed == "" || line[0] != ' ' && line[0] != '\t') { // an empty or unindented line
				return "", false
			}
			lines[i] = trimmed
		}
		r = strings.Join(lines, " ")
	}
	if r == "" {
		return r, true
	}
	if !utf8.ValidString(r) || r[0] == ' ' || r[len(r)-1] == ' ' {
		return "", false
	}
	for _, c := range r {
		if c < 0x20 || c == 0x7f || c == 0x85 || c == 0xfeff || c == 0x2028 || c == 0x2029 || c == utf8.RuneError {
			return "", false
		}
	}
	switch {
	case style == values.SingleQuotedStyle && strings.Contains(r, "'"),
		style == values.DoubleQuotedStyle && strings.ContainsAny(r, `"\`):
		return "", false
	}
	return r, true
}

// plainFits reports whether a plain scalar's whole text, with the results
// of its actions in it, reads back as one scalar with that text.
func plainFits(text string) bool {
	if text == "" {
		return true
	}
	if text[0] == ' ' || text[len(text)-1] == ' ' || text[len(text)-1] == ':' ||
		strings.Contains(text, ": ") || strings.Contains(text, " #") {
		return false
	}
	return values.PlainStart(text)
}
