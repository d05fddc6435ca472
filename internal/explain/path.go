package explain

import (
	"fmt"
	"strconv"
	"strings"
)

// ParsePath splits a field path: keys separated by dots, a key with dots
// or spaces in double quotes ("a.b"), list indexes as [N] or as a key N.
func ParsePath(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	started := false
	flush := func() {
		if started {
			out = append(out, cur.String())
		}
		cur.Reset()
		started = false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '.':
			if !started {
				return nil, fmt.Errorf("field %q: empty key at offset %d (keys are separated by single dots)", s, i)
			}
			flush()
		case '"':
			end := i + 1
			for end < len(s) && s[end] != '"' {
				if s[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(s) {
				return nil, fmt.Errorf("field %q: unterminated quote", s)
			}
			key, err := strconv.Unquote(s[i : end+1])
			if err != nil {
				return nil, fmt.Errorf("field %q: %w", s, err)
			}
			cur.WriteString(key)
			started = true
			i = end
		case '[':
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("field %q: unterminated [", s)
			}
			idx := s[i+1 : i+end]
			if _, err := strconv.Atoi(idx); err != nil {
				return nil, fmt.Errorf("field %q: [%s] is not a list index", s, idx)
			}
			flush()
			out = append(out, idx)
			i += end
			if i+1 < len(s) && s[i+1] == '.' {
				i++
				if i+1 >= len(s) {
					return nil, fmt.Errorf("field %q: ends with a dot", s)
				}
			}
		default:
			cur.WriteByte(c)
			started = true
		}
	}
	if strings.HasSuffix(s, ".") {
		return nil, fmt.Errorf("field %q: ends with a dot", s)
	}
	flush()
	if len(out) == 0 {
		return nil, fmt.Errorf("field is empty: name a path such as source.targetRevision")
	}
	return out, nil
}
