package render

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/strata-fleet/strata/internal/values"
)

// After yamlObject, Helm's toYaml is go.yaml.in/yaml/v2's Marshal of the
// object, and its emitter was the largest part of rendering an item (14%
// of a 1,000-target render). emitYAML writes the same text directly for
// what item values mostly are: mappings and lists in block style, empty
// ones as {} and [], numbers, booleans, null, and strings of printable
// ASCII that the emitter writes plain, in single quotes or in double
// quotes without escapes (folded past 80 columns as the emitter folds
// them), or in a literal block when they hold line breaks. Anything else
// (a list in a list, a non-ASCII string, a double-quoted string that
// would fold, a long key, a string whose plain reading it cannot tell,
// such as a timestamp, a document that is a string) returns false, and
// Marshal writes the object. TestEmitAsYAMLv2 and FuzzToYAML compare the
// two.

// foldWidth is the column past which yaml.v2 folds a scalar at a space.
const foldWidth = 80

// maxSimpleKey bounds the keys emitYAML writes: yaml.v2 writes a key over
// 128 characters in the complex form ("? key").
const maxSimpleKey = 128

// emitYAML is Marshal of obj (what yamlObject returns), or false.
func emitYAML(obj any) (string, bool) {
	var e emitter
	var ok bool
	switch x := obj.(type) {
	case map[any]any:
		if len(x) == 0 {
			return "{}\n", true
		}
		ok = e.mapping(x, 0, false)
	case []any:
		if len(x) == 0 {
			return "[]\n", true
		}
		ok = e.list(x, 0)
	default:
		ok = e.scalar(x, -1)
		e.newline()
	}
	return e.b.String(), ok
}

type emitter struct {
	b    strings.Builder
	line int // where the current line starts in b
}

func (e *emitter) newline() {
	e.b.WriteByte('\n')
	e.line = e.b.Len()
}

func (e *emitter) indent(n int) {
	for range n {
		e.b.WriteByte(' ')
	}
}

// mapping writes m's entries, keys at column n; the first on the current
// line when inList (after a list entry's "- ").
func (e *emitter) mapping(m map[any]any, n int, inList bool) bool {
	keys := make(yamlKeys, 0, len(m))
	for k := range m {
		s, ok := k.(string)
		if !ok {
			return false
		}
		keys = append(keys, s)
	}
	sort.Sort(keys)
	if !keys.ordered() {
		return false
	}
	for i, k := range keys {
		if i > 0 || !inList {
			e.indent(n)
		}
		if !e.str(k, 0) {
			return false
		}
		e.b.WriteByte(':')
		switch v := m[k].(type) {
		case map[any]any:
			if len(v) == 0 {
				e.b.WriteString(" {}")
				e.newline()
				continue
			}
			e.newline()
			if !e.mapping(v, n+2, false) {
				return false
			}
		case []any:
			if len(v) == 0 {
				e.b.WriteString(" []")
				e.newline()
				continue
			}
			e.newline()
			if !e.list(v, n) { // a list in a mapping is not indented
				return false
			}
		default:
			e.b.WriteByte(' ')
			if !e.scalar(v, n+2) {
				return false
			}
			e.newline()
		}
	}
	return true
}

// list writes l's entries, each "- " at column n.
func (e *emitter) list(l []any, n int) bool {
	for _, v := range l {
		e.indent(n)
		e.b.WriteString("- ")
		switch v := v.(type) {
		case map[any]any:
			if len(v) == 0 {
				e.b.WriteString("{}")
				e.newline()
				continue
			}
			if !e.mapping(v, n+2, true) {
				return false
			}
		case []any:
			if len(v) > 0 {
				return false // a list in a list
			}
			e.b.WriteString("[]")
			e.newline()
		default:
			if !e.scalar(v, n+2) {
				return false
			}
			e.newline()
		}
	}
	return true
}

// scalar writes a scalar value as yaml.v2 does; a string that folds
// continues on lines indented by fold (see str).
func (e *emitter) scalar(v any, fold int) bool {
	switch x := v.(type) {
	case nil:
		e.b.WriteString("null")
	case bool:
		e.b.WriteString(strconv.FormatBool(x))
	case int:
		e.b.WriteString(strconv.Itoa(x))
	case int64:
		e.b.WriteString(strconv.FormatInt(x, 10))
	case uint64:
		e.b.WriteString(strconv.FormatUint(x, 10))
	case float64:
		switch {
		case math.IsInf(x, 1):
			e.b.WriteString(".inf")
		case math.IsInf(x, -1):
			e.b.WriteString("-.inf")
		case math.IsNaN(x):
			e.b.WriteString(".nan")
		default:
			e.b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
		}
	case string:
		return e.str(x, fold)
	default:
		return false
	}
	return true
}

// str writes a string in the style yaml.v2 picks: plain when it reads
// back as the same string and starts and ends as a plain scalar may, else
// in single quotes when it would read back as a string only in them, else
// in double quotes. A value that goes past foldWidth folds at its spaces
// (plain or single-quoted: foldAt), continuing on lines indented by fold;
// a key (fold 0) never folds, and where fold is -1 (a document that is a
// string) or the string is double-quoted, folding is left to yaml.v2.
func (e *emitter) str(s string, fold int) bool {
	key := fold == 0
	if fold > 0 && strings.IndexByte(s, '\n') >= 0 {
		return e.literal(s, fold)
	}
	if key && len(s) > maxSimpleKey || !printableASCII(s) {
		return false
	}
	plain, known := readsAsString(s)
	if !known {
		return false
	}
	var text string
	switch {
	case plain && plainAllowed(s):
		text = s
	case plain:
		text = "'" + strings.ReplaceAll(s, "'", "''") + "'"
	default:
		if strings.ContainsAny(s, `"\`) {
			return false // escapes
		}
		text = `"` + s + `"`
	}
	if !key && strings.IndexByte(s, ' ') >= 0 && e.b.Len()-e.line+len(text) > foldWidth {
		if fold < 0 || text[0] == '"' {
			return false
		}
		e.foldAt(s, fold, text[0] == '\'')
		return true
	}
	e.b.WriteString(text)
	return true
}

// foldAt writes s plain, or in single quotes when quoted, as yaml.v2's
// emitter folds it: a space past column foldWidth that follows another
// character and comes before one (for a quoted string, not its first or
// last character) becomes a line break and indent spaces.
func (e *emitter) foldAt(s string, indent int, quoted bool) {
	if quoted {
		e.b.WriteByte('\'')
	}
	col := e.b.Len() - e.line
	spaces := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' {
			if !spaces && col > foldWidth && i+1 < len(s) && s[i+1] != ' ' && (!quoted || i > 0) {
				e.newline()
				e.indent(indent)
				col = indent
			} else {
				e.b.WriteByte(' ')
				col++
			}
			spaces = true
			continue
		}
		if quoted && c == '\'' {
			e.b.WriteByte('\'')
			col++
		}
		e.b.WriteByte(c)
		col++
		spaces = false
	}
	if quoted {
		e.b.WriteByte('\'')
	}
}

// literal writes a value of several lines as yaml.v2 does, in a literal
// block whose lines are indented by indent, or returns false where yaml.v2
// writes it in double quotes (a space before a line break or at the end,
// a character other than printable ASCII and line feeds).
func (e *emitter) literal(s string, indent int) bool {
	if s[len(s)-1] == ' ' || strings.Contains(s, " \n") || !printableASCII(strings.ReplaceAll(s, "\n", "")) {
		return false
	}
	e.b.WriteByte('|')
	if s[0] == ' ' || s[0] == '\n' {
		e.b.WriteByte('2') // the indentation, which the first line cannot tell
	}
	switch {
	case s[len(s)-1] != '\n':
		e.b.WriteByte('-')
	case len(s) == 1 || s[len(s)-2] == '\n':
		e.b.WriteByte('+')
	}
	// The line break after the last line is the caller's.
	for line := range strings.SplitSeq(strings.TrimSuffix(s, "\n"), "\n") {
		e.newline()
		if line != "" {
			e.indent(indent)
			e.b.WriteString(line)
		}
	}
	return true
}

// printableASCII reports whether s holds only printable ASCII: no line
// break, control character or anything beyond ASCII.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// yamlFloat is the float syntax yaml.v2 resolves after its other checks.
var yamlFloat = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// v2Words are the plain scalars yaml.v2 reads as booleans, null, floats
// or the merge key, when they start with a character that it looks up.
var v2Words = map[string]bool{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true, "true": true, "True": true, "TRUE": true,
	"on": true, "On": true, "ON": true, "n": true, "N": true, "no": true, "No": true, "NO": true,
	"false": true, "False": true, "FALSE": true, "off": true, "Off": true, "OFF": true,
	"~": true, "null": true, "Null": true, "NULL": true,
	".nan": true, ".NaN": true, ".NAN": true, ".inf": true, ".Inf": true, ".INF": true,
	"+.inf": true, "+.Inf": true, "+.INF": true, "-.inf": true, "-.Inf": true, "-.INF": true,
}

// readsAsString reports whether yaml.v2 would read s, written plain, as
// the string s (plain), and whether it can tell (known): a timestamp or a
// sexagesimal number it leaves to yaml.v2.
func readsAsString(s string) (plain, known bool) {
	if s == "" {
		return false, true // null
	}
	c := s[0]
	looked := c == '+' || c == '-' || c == '.' || c >= '0' && c <= '9' || strings.IndexByte("yYnNtTfFoO~", c) >= 0
	if looked && v2Words[s] {
		return false, true
	}
	switch {
	case c == '.':
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return false, true
		}
	case c == '+' || c == '-' || c >= '0' && c <= '9':
		if sexagesimal(s) || len(s) > 4 && s[4] == '-' && digits(s[:4]) {
			return false, false // a sexagesimal number or a timestamp, maybe
		}
		p := strings.ReplaceAll(s, "_", "")
		if _, err := strconv.ParseInt(p, 0, 64); err == nil {
			return false, true
		}
		if _, err := strconv.ParseUint(p, 0, 64); err == nil {
			return false, true
		}
		if yamlFloat.MatchString(p) {
			if _, err := strconv.ParseFloat(p, 64); err == nil {
				return false, true
			}
		}
		if b, ok := strings.CutPrefix(p, "0b"); ok {
			if _, err := strconv.ParseInt(b, 2, 64); err == nil {
				return false, true
			}
			if _, err := strconv.ParseUint(b, 2, 64); err == nil {
				return false, true
			}
		} else if b, ok := strings.CutPrefix(p, "-0b"); ok {
			if _, err := strconv.ParseInt("-"+b, 2, 64); err == nil {
				return false, true
			}
		}
	}
	return true, true
}

// sexagesimal reports whether s may be a YAML 1.1 sexagesimal number
// (190:20:30), which yaml.v2 quotes: a digit after an optional sign, and a
// colon.
func sexagesimal(s string) bool {
	if s[0] == '+' || s[0] == '-' {
		s = s[1:]
	}
	return s != "" && digit(s[0]) && strings.IndexByte(s, ':') >= 0
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// plainAllowed reports whether yaml.v2's emitter writes the printable
// ASCII string s plain in block context: no space at either end, no
// document marker at the start, a start that a plain scalar may have (the
// emitter's indicators are YAML's: values.PlainStart), no ": " or " #"
// inside.
func plainAllowed(s string) bool {
	if s[0] == ' ' || s[len(s)-1] == ' ' || strings.HasPrefix(s, "---") || strings.HasPrefix(s, "...") ||
		!values.PlainStart(s) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] == ':' && (i+1 == len(s) || s[i+1] == ' ') || s[i] == '#' && s[i-1] == ' ' {
			return false
		}
	}
	return true
}

// yamlKeys sorts mapping keys as yaml.v2 does: by character, except that
// a letter sorts after anything else and runs of digits compare as
// numbers (the keys are ASCII: printableASCII).
type yamlKeys []string

func (k yamlKeys) Len() int      { return len(k) }
func (k yamlKeys) Swap(i, j int) { k[i], k[j] = k[j], k[i] }
func (k yamlKeys) Less(i, j int) bool {
	a, b := k[i], k[j]
	for p := 0; p < len(a) && p < len(b); p++ {
		if a[p] == b[p] {
			continue
		}
		al, bl := letter(a[p]), letter(b[p])
		switch {
		case al && bl:
			return a[p] < b[p]
		case al || bl:
			return bl
		}
		// Digits (or other characters): the numbers that start here, a
		// zero after other digits counting as part of a larger number.
		var an, bn int64
		if a[p] == '0' || b[p] == '0' {
			for q := p - 1; q >= 0 && digit(a[q]); q-- {
				if a[q] != '0' {
					an, bn = 1, 1
					break
				}
			}
		}
		ae, be := p, p
		for ; ae < len(a) && digit(a[ae]); ae++ {
			an = an*10 + int64(a[ae]-'0')
		}
		for ; be < len(b) && digit(b[be]); be++ {
			bn = bn*10 + int64(b[be]-'0')
		}
		switch {
		case an != bn:
			return an < bn
		case ae != be:
			return ae < be
		}
		return a[p] < b[p]
	}
	return len(a) < len(b)
}

// maxNumberedKeys bounds the keys of a mapping that ordered checks pair by
// pair.
const maxNumberedKeys = 64

// ordered reports whether k, sorted, is in the one order that any sort
// gives: yaml.v2's comparison is not transitive on some keys with digits
// ("09" < "0x1F" < "1" < "9" < "09"), and on those its order depends on
// the map's iteration order. Without digits it is a plain lexicographic
// order; with them, every pair is checked.
func (k yamlKeys) ordered() bool {
	numbered := false
	for _, s := range k {
		if strings.ContainsAny(s, "0123456789") {
			numbered = true
			break
		}
	}
	if !numbered {
		return true
	}
	if len(k) > maxNumberedKeys {
		return false
	}
	for i := range k {
		for j := i + 1; j < len(k); j++ {
			if !k.Less(i, j) || k.Less(j, i) {
				return false
			}
		}
	}
	return true
}

func letter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func digit(c byte) bool  { return c >= '0' && c <= '9' }
