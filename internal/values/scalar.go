package values

import (
	"math/big"
	"regexp"
	"strconv"
	"strings"
)

// The implicit resolvers of YAML 1.1 as PyYAML implements them.
var (
	intRE   = regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)
	floatRE = regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
	// yaml12RE matches plain scalars that a YAML 1.2 reader (yaml.v3, and
	// Argo CD's readers) resolves to something other than a string.
	yaml12RE = regexp.MustCompile(`^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|y|Y|n|N)$`)
)

// bools11 are the YAML 1.1 booleans.
var bools11 = map[string]string{
	"yes": "true", "Yes": "true", "YES": "true", "true": "true", "True": "true", "TRUE": "true",
	"on": "true", "On": "true", "ON": "true",
	"no": "false", "No": "false", "NO": "false", "false": "false", "False": "false", "FALSE": "false",
	"off": "false", "Off": "false", "OFF": "false",
}

// numberStart reports whether a plain scalar starting with c may be a number.
func numberStart(c byte) bool { return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' }

// numberByte marks the bytes that intRE, floatRE and yaml12RE match.
var numberByte = func() (set [256]bool) {
	for _, c := range []byte("0123456789abcdefABCDEFxoinINyY_+-.:") {
		set[c] = true
	}
	return set
}()

// numberBytes reports whether s holds only bytes that intRE, floatRE and
// yaml12RE match: a quick no before running them.
func numberBytes(s string) bool {
	for i := 0; i < len(s); i++ {
		if !numberByte[s[i]] {
			return false
		}
	}
	return true
}

// resolve gives the kind and canonical text of a plain scalar.
func resolve(s string) (Kind, string) {
	switch s {
	case "", "~", "null", "Null", "NULL":
		return Null, "null"
	}
	if !numberStart(s[0]) {
		if len(s) <= 5 {
			if b, ok := bools11[s]; ok {
				return Bool, b
			}
		}
		return String, s
	}
	if !numberBytes(s) { // most plain text that starts with a digit: 150m, 256Mi, 0 3 * * *
		return String, s
	}
	if intRE.MatchString(s) {
		if n, ok := parseInt11(s); ok {
			return Int, n
		}
	}
	if floatRE.MatchString(s) {
		return Float, canonicalFloat(s)
	}
	return String, s
}

// parseInt11 converts a YAML 1.1 integer to its decimal spelling.
func parseInt11(s string) (string, bool) {
	s = strings.ReplaceAll(s, "_", "")
	neg := false
	switch s[0] {
	case '-':
		neg, s = true, s[1:]
	case '+':
		s = s[1:]
	}
	n := new(big.Int)
	var ok bool
	switch {
	case strings.Contains(s, ":"):
		ok = true
		for _, part := range strings.Split(s, ":") {
			d, err := strconv.Atoi(part)
			if err != nil {
				return "", false
			}
			n.Mul(n, big.NewInt(60)).Add(n, big.NewInt(int64(d)))
		}
	case strings.HasPrefix(s, "0b"):
		_, ok = n.SetString(s[2:], 2)
	case strings.HasPrefix(s, "0x"):
		_, ok = n.SetString(s[2:], 16)
	case len(s) > 1 && s[0] == '0':
		_, ok = n.SetString(s[1:], 8)
	default:
		_, ok = n.SetString(s, 10)
	}
	if !ok {
		return "", false
	}
	if neg {
		n.Neg(n)
	}
	return n.String(), true
}

// canonicalFloat spells a YAML 1.1 float so that YAML 1.1 and 1.2 readers
// both read it back as the same float.
func canonicalFloat(s string) string {
	t := strings.ReplaceAll(s, "_", "")
	switch strings.ToLower(strings.TrimLeft(t, "+")) {
	case ".inf":
		return ".inf"
	case "-.inf":
		return "-.inf"
	case ".nan":
		return ".nan"
	}
	if strings.Contains(t, ":") {
		neg := strings.HasPrefix(t, "-")
		t = strings.TrimLeft(t, "+-")
		parts := strings.Split(t, ":")
		var f float64
		for _, p := range parts {
			v, _ := strconv.ParseFloat(p, 64)
			f = f*60 + v
		}
		if neg {
			f = -f
		}
		return FormatFloat(f)
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return t
	}
	return FormatFloat(f)
}

// FormatFloat spells f the way PyYAML does: always with a dot, exponents
// signed.
func FormatFloat(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	switch s {
	case "+Inf":
		return ".inf"
	case "-Inf":
		return "-.inf"
	case "NaN":
		return ".nan"
	}
	if !strings.ContainsAny(s, ".e") {
		return s + ".0"
	}
	if i := strings.IndexByte(s, 'e'); i >= 0 && !strings.Contains(s[:i], ".") {
		return s[:i] + ".0" + s[i:]
	}
	return s
}

// needsQuotes reports whether a string must be quoted to read back as the
// same string, by YAML 1.1 and 1.2 readers alike.
func needsQuotes(s string) bool {
	if s == "" {
		return true
	}
	if k, _ := resolve(s); k != String {
		return true
	}
	if s == "<<" || s == "=" || (len(s) == 1 && strings.ContainsAny(s, "yYnN")) || (numberStart(s[0]) && numberBytes(s) && yaml12RE.MatchString(s)) {
		return true
	}
	// Document markers, read as the end of a document at a line start.
	if strings.HasPrefix(s, "---") || strings.HasPrefix(s, "...") {
		return true
	}
	switch s[0] {
	case '-', '?', ':':
		if len(s) == 1 || s[1] == ' ' || s[1] == '\t' {
			return true
		}
	case ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', ' ', '\t':
		return true
	}
	last := s[len(s)-1]
	if last == ' ' || last == '\t' || last == ':' {
		return true
	}
	if strings.Contains(s, ": ") || strings.Contains(s, " #") || strings.Contains(s, ":\t") || strings.Contains(s, "\t#") {
		return true
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == 0xfeff || r == 0x85 || r == 0x2028 || r == 0x2029 {
			return true
		}
	}
	// Timestamps are read as dates by YAML 1.1 readers.
	if len(s) >= 8 && s[0] >= '0' && s[0] <= '9' && timestampRE.MatchString(s) {
		return true
	}
	return false
}

var timestampRE = regexp.MustCompile(`^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)?$`)
