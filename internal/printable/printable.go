package printable

import (
	"strings"
	"unicode"
)

// String is s with each control character other than newline and tab
// (C0, DEL, C1) in caret notation: ESC is ^[, BEL ^G, DEL ^?, and a C1
// character (or an invalid byte's replacement) \u009b as <U+009B>.
// s is returned as it is when it has none.
func String(s string) string {
	if strings.IndexFunc(s, unsafe) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !unsafe(r):
			b.WriteRune(r)
		case r < 0x20:
			b.WriteByte('^')
			b.WriteByte(byte(r) + '@')
		case r == 0x7f:
			b.WriteString("^?")
		default:
			b.WriteString("<U+")
			b.WriteString(hex4(r))
			b.WriteString(">")
		}
	}
	return b.String()
}

func unsafe(r rune) bool {
	return r != '\n' && r != '\t' && unicode.IsControl(r)
}

func hex4(r rune) string {
	const digits = "0123456789ABCDEF"
	return string([]byte{digits[r>>12&0xf], digits[r>>8&0xf], digits[r>>4&0xf], digits[r&0xf]})
}
