package benchfleet

import (
	"strconv"
	"strings"
)

// The fleet is built from a small ordered document model and printed by hand
// rather than through a YAML library: that keeps key order, comments, blank
// lines and quoting under control, which is what makes the output
// byte-identical from run to run and readable by every YAML parser involved.

// mapping is an ordered YAML mapping.
type mapping struct {
	entries []entry
}

// entry is one key of a mapping. comment is printed after the value on the
// key's line; blank puts an empty line before the key.
type entry struct {
	key     string
	value   any // string, int, bool, block, *mapping or []any
	comment string
	blank   bool
}

// block is a multi-line string printed as a literal block scalar.
type block string

// m builds a mapping from alternating keys and values.
func m(kv ...any) *mapping {
	if len(kv)%2 != 0 {
		panic("benchfleet: odd number of arguments to m")
	}
	out := &mapping{entries: make([]entry, 0, len(kv)/2)}
	for i := 0; i < len(kv); i += 2 {
		out.entries = append(out.entries, entry{key: kv[i].(string), value: kv[i+1]})
	}
	return out
}

// set appends a key.
func (mp *mapping) set(key string, value any) *mapping {
	mp.entries = append(mp.entries, entry{key: key, value: value})
	return mp
}

// note sets the comment of the last key.
func (mp *mapping) note(comment string) *mapping {
	mp.entries[len(mp.entries)-1].comment = comment
	return mp
}

// spaced puts a blank line before the last key.
func (mp *mapping) spaced() *mapping {
	mp.entries[len(mp.entries)-1].blank = true
	return mp
}

// list builds a sequence.
func list(items ...any) []any { return items }

// document prints a YAML document: header comment lines, then the mapping.
func document(header []string, body *mapping) []byte {
	var b strings.Builder
	for _, h := range header {
		b.WriteString("# ")
		b.WriteString(h)
		b.WriteByte('\n')
	}
	writeMapping(&b, body, 0, false)
	return []byte(b.String())
}

func writeMapping(b *strings.Builder, mp *mapping, indent int, inlineFirst bool) {
	for i, e := range mp.entries {
		if e.blank && i > 0 {
			b.WriteByte('\n')
		}
		if i > 0 || !inlineFirst {
			b.WriteString(strings.Repeat(" ", indent))
		}
		b.WriteString(scalar(e.key))
		b.WriteByte(':')
		writeValue(b, e.value, indent, e.comment)
	}
}

// writeValue prints what follows "key:" or "- ".
func writeValue(b *strings.Builder, v any, indent int, comment string) {
	tail := func() {
		if comment != "" {
			b.WriteString("  # ")
			b.WriteString(comment)
		}
		b.WriteByte('\n')
	}
	switch v := v.(type) {
	case *mapping:
		if len(v.entries) == 0 {
			b.WriteString(" {}")
			tail()
			return
		}
		tail()
		writeMapping(b, v, indent+2, false)
	case []any:
		if len(v) == 0 {
			b.WriteString(" []")
			tail()
			return
		}
		tail()
		writeSequence(b, v, indent+2)
	case block:
		text, chomp := string(v), ""
		if !strings.HasSuffix(text, "\n") {
			chomp = "-"
		}
		b.WriteString(" |" + chomp)
		tail()
		for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			if line != "" {
				b.WriteString(strings.Repeat(" ", indent+2))
				b.WriteString(line)
			}
			b.WriteByte('\n')
		}
	default:
		b.WriteByte(' ')
		b.WriteString(scalar(v))
		tail()
	}
}

func writeSequence(b *strings.Builder, items []any, indent int) {
	for _, it := range items {
		b.WriteString(strings.Repeat(" ", indent))
		b.WriteString("-")
		if mp, ok := it.(*mapping); ok && len(mp.entries) > 0 {
			b.WriteByte(' ')
			writeMapping(b, mp, indent+2, true)
			continue
		}
		writeValue(b, it, indent, "")
	}
}

// scalar prints a string, int or bool the way every parser involved reads
// back as the same value.
func scalar(v any) string {
	switch v := v.(type) {
	case string:
		return quote(v)
	case int:
		return strconv.Itoa(v)
	case bool:
		return strconv.FormatBool(v)
	}
	panic("benchfleet: unsupported scalar")
}

// quote leaves s plain when it cannot be read as anything but that string
// under YAML 1.1 and 1.2 alike; otherwise it single-quotes (when s holds
// double quotes, as template expressions do) or double-quotes it.
func quote(s string) string {
	if plain(s) {
		return s
	}
	if strings.Contains(s, `"`) && !strings.ContainsAny(s, "'\n\\") {
		return "'" + s + "'"
	}
	return strconv.Quote(s)
}

func plain(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null":
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isLetter(c), c >= '0' && c <= '9':
		case c == '.', c == '_', c == '/', c == '-', c == '=':
		case c == ':':
			if i == len(s)-1 || s[i+1] == ' ' {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
