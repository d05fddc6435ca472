package values

import (
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/strata-fleet/strata/internal/memo"
)

// Encode writes v as a block-style YAML document in the layout PyYAML uses
// (lists not indented under their key, no line wrapping), ending in a newline.
// Strings are quoted only where a YAML 1.1 or 1.2 reader would otherwise read
// something else; multi-line strings use literal blocks.
func Encode(v *Value) []byte { return encode(v, nil, 0) }

// Encoder encodes many trees that share subtrees: it remembers the text of
// the mappings it encoded near the top of a tree, by node, while trees use
// them (package memo), so that a subtree shared by many trees is encoded
// once. Safe for concurrent use.
type Encoder struct {
	memo memo.Table[memoKey, string]
	// last is the size of the last text encoded: the next one, of a tree
	// much like it, starts with room for as much and an eighth, rather than
	// growing (and copying) its buffer as it fills.
	last atomic.Int64
}

// memoIndent is the indentation of the mappings an Encoder remembers: the
// items of a values file's sections, which most trees share.
const memoIndent = 4

type memoKey struct {
	v   *Value
	ind int
}

// Encode is the package's Encode, memoized.
func (enc *Encoder) Encode(v *Value) []byte {
	last := enc.last.Load()
	out := encode(v, &enc.memo, int(last+last/8))
	enc.last.Store(int64(len(out)))
	return out
}

// Hole is a scalar that EncodeAround left out, with the indentation that
// AppendScalar needs to write a value in its place.
type Hole struct {
	V      *Value
	Indent int
}

// EncodeAround encodes v as Encode does, but for the scalars in holes (a
// document that is itself a scalar cannot have one): the text is pieces[0],
// then the value of the first hole, pieces[1], and so on, a scalar repeated
// by a merge key making as many holes. Filling the holes with AppendScalar
// gives what Encode gives of v with other scalars in their place.
func EncodeAround(v *Value, holes map[*Value]bool) (pieces []string, at []Hole) {
	var b buffer
	e := encoder{b: &b, holes: holes, pieces: &pieces, at: &at}
	if v.Kind == Map && len(v.Keys) > 0 {
		e.mapping(v, 0)
	} else if v.Kind == List && len(v.Items) > 0 {
		e.list(v, 0)
	} else {
		b = encode(v, nil, 0)
	}
	return append(pieces, b.String()), at
}

// AppendScalar appends to dst a scalar value as Encode would write it at
// indentation indent (which only a multi-line string needs), without a
// line break after it.
func AppendScalar(dst []byte, v *Value, indent int) []byte {
	b := buffer(dst)
	encoder{b: &b}.scalar(v, indent)
	return b
}

// encode is Encode, with the texts of the mappings at memoIndent memoized
// in texts (when not nil), into a buffer of size bytes to start with.
func encode(v *Value, texts *memo.Table[memoKey, string], size int) []byte {
	b := make(buffer, 0, size)
	e := encoder{b: &b, memo: texts}
	switch {
	case v.Kind == Map && len(v.Keys) > 0:
		e.mapping(v, 0)
	case v.Kind == List && len(v.Items) > 0:
		e.list(v, 0)
	default:
		e.scalar(v, 2) // a literal block needs indenting, even at the top level
		b.addByte('\n')
	}
	return b
}

// buffer is the text an encoder writes. Encode returns it as it is (a
// strings.Builder's text would be copied into the []byte that a file
// needs).
type buffer []byte

func (b *buffer) add(s string)   { *b = append(*b, s...) }
func (b *buffer) addByte(c byte) { *b = append(*b, c) }
func (b *buffer) String() string { return string(*b) }
func (b *buffer) Reset()         { *b = (*b)[:0] }

type encoder struct {
	b    *buffer
	memo *memo.Table[memoKey, string]
	// holes are the scalars left out (EncodeAround): the text before each
	// goes to pieces, the hole to at.
	holes  map[*Value]bool
	pieces *[]string
	at     *[]Hole
}

func (e encoder) indent(n int) {
	for range n {
		e.b.addByte(' ')
	}
}

// mapping writes the entries of a non-empty mapping, the first one at the
// current position and the others indented by ind.
func (e encoder) mapping(v *Value, ind int) {
	if e.memo != nil && ind == memoIndent {
		key := memoKey{v, ind}
		if text, ok := e.memo.Get(key); ok {
			e.b.add(text)
			return
		}
		var b buffer
		encoder{b: &b}.mapping(v, ind)
		text := b.String()
		e.memo.Put(key, text)
		e.b.add(text)
		return
	}
	for i, k := range v.Keys {
		if i > 0 {
			e.indent(ind)
		}
		e.key(k)
		e.b.addByte(':')
		e.child(v.Vals[i], ind, true)
	}
}

// list writes the items of a non-empty list, the first at the current
// position and the others indented by ind.
func (e encoder) list(v *Value, ind int) {
	for i, it := range v.Items {
		if i > 0 {
			e.indent(ind)
		}
		e.b.add("-")
		e.child(it, ind, false)
	}
}

// child writes the value that follows a "key:" or a "-".
func (e encoder) child(v *Value, ind int, inMap bool) {
	switch {
	case v.Kind == Map && len(v.Keys) > 0:
		if inMap {
			e.b.addByte('\n')
			e.indent(ind + 2)
		} else {
			e.b.addByte(' ')
		}
		e.mapping(v, ind+2)
	case v.Kind == List && len(v.Items) > 0:
		if inMap {
			e.b.addByte('\n')
			e.indent(ind)
			e.list(v, ind)
		} else {
			e.b.addByte(' ')
			e.list(v, ind+2)
		}
	default:
		e.b.addByte(' ')
		if e.holes[v] {
			*e.pieces = append(*e.pieces, e.b.String())
			*e.at = append(*e.at, Hole{V: v, Indent: ind + 2})
			e.b.Reset()
		} else {
			e.scalar(v, ind+2)
		}
		e.b.addByte('\n')
	}
}

func (e encoder) key(k string) {
	if needsQuotes(k) || strings.ContainsAny(k, "\n") {
		e.quoted(k)
		return
	}
	e.b.add(k)
}

func (e encoder) scalar(v *Value, ind int) {
	switch v.Kind {
	case Map:
		e.b.add("{}")
	case List:
		e.b.add("[]")
	case String:
		e.str(v.Text, ind)
	default:
		e.b.add(v.Text)
	}
}

func (e encoder) str(s string, ind int) {
	switch {
	case strings.Contains(s, "\n") && literalOK(s):
		e.literal(s, ind)
	case !needsQuotes(s):
		e.b.add(s)
	default:
		e.quoted(s)
	}
}

// literalOK reports whether s reads back unchanged from a literal block.
func literalOK(s string) bool {
	if s[0] == ' ' || s[0] == '\n' || s[0] == '\t' {
		return false
	}
	for _, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || r == 0x85 || r == 0xfeff || r == 0x2028 || r == 0x2029 {
			return false
		}
	}
	for _, line := range strings.Split(s, "\n") {
		if strings.HasSuffix(line, " ") || strings.HasSuffix(line, "\t") {
			return false
		}
	}
	return true
}

func (e encoder) literal(s string, ind int) {
	body := strings.TrimRight(s, "\n")
	trail := len(s) - len(body)
	switch {
	case trail == 0:
		e.b.add("|-")
	case trail == 1:
		e.b.add("|")
	default:
		e.b.add("|+")
	}
	for _, line := range strings.Split(body, "\n") {
		e.b.addByte('\n')
		if line != "" {
			e.indent(ind)
			e.b.add(line)
		}
	}
	// The caller writes the final line break; a kept block adds the others.
	for i := 1; i < trail; i++ {
		e.b.addByte('\n')
	}
}

func (e encoder) quoted(s string) {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == 0x85 || r == 0xfeff || r == 0x2028 || r == 0x2029 || r == '\uFFFD' {
			e.b.add(strconv.Quote(s))
			return
		}
	}
	e.b.addByte('\'')
	e.b.add(strings.ReplaceAll(s, "'", "''"))
	e.b.addByte('\'')
}
