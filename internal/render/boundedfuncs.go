package render

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"helm.sh/helm/v4/pkg/chart/common"
)

// sprigFuncs are sprig's functions as Helm has them; the bounded functions
// call them.
var sprigFuncs = sprig.TxtFuncMap()

var (
	sprigUntil     = sprigFuncs["until"].(func(int) []int)
	sprigUntilStep = sprigFuncs["untilStep"].(func(int, int, int) []int)
	sprigSeq       = sprigFuncs["seq"].(func(...int) string)
	sprigRepeat    = sprigFuncs["repeat"].(func(int, string) string)
	sprigIndent    = sprigFuncs["indent"].(func(int, string) string)
	sprigNindent   = sprigFuncs["nindent"].(func(int, string) string)
	sprigReplace   = sprigFuncs["replace"].(func(string, string, string) string)
	sprigJoin      = sprigFuncs["join"].(func(string, any) string)
	sprigPrettyJS  = sprigFuncs["toPrettyJson"].(func(any) string)
	sprigPush      = sprigFuncs["append"].(func(any, any) []any)
	sprigConcat    = sprigFuncs["concat"].(func(...any) any)
	sprigList      = sprigFuncs["list"].(func(...any) []any)
	sprigDict      = sprigFuncs["dict"].(func(...any) map[string]any)
)

// funcs returns the bounded functions that replace Helm's in a render
// under b.
func (b *budget) funcs() template.FuncMap {
	m := b.counted()
	maps.Copy(m, b.sized())
	m[rangeTextFunc] = b.wroteText
	return m
}

// sized returns the functions that check what they would make before
// making it.
func (b *budget) sized() template.FuncMap {
	return template.FuncMap{
		"until": func(n int) ([]int, error) {
			if err := b.size(8*int64(n), func() string { return fmt.Sprintf("until %d makes a list of %d numbers", n, n) }); err != nil {
				return nil, err
			}
			return sprigUntil(n), nil
		},
		"untilStep": func(start, stop, step int) ([]int, error) {
			n := int64(0)
			if step != 0 {
				n = (int64(stop) - int64(start)) / int64(step)
			}
			if err := b.size(8*n, func() string {
				return fmt.Sprintf("untilStep %d %d %d makes a list of %d numbers", start, stop, step, n)
			}); err != nil {
				return nil, err
			}
			return sprigUntilStep(start, stop, step), nil
		},
		"seq": func(params ...int) (string, error) {
			if err := b.size(seqLen(params), func() string { return fmt.Sprintf("seq %v makes %s", params, byteCount(seqLen(params))) }); err != nil {
				return "", err
			}
			return sprigSeq(params...), nil
		},
		"repeat": func(count int, s string) (string, error) {
			n := int64(count) * int64(len(s))
			if count > 0 && len(s) > 0 && n/int64(count) != int64(len(s)) {
				n = -1 // overflow
			}
			if err := b.size(n, func() string { return fmt.Sprintf("repeat %d makes %s", count, byteCount(n)) }); err != nil {
				return "", err
			}
			return sprigRepeat(count, s), nil
		},
		"indent": func(spaces int, s string) (string, error) {
			if err := b.indentSize("indent", spaces, s); err != nil {
				return "", err
			}
			return sprigIndent(spaces, s), nil
		},
		"nindent": func(spaces int, s string) (string, error) {
			if err := b.indentSize("nindent", spaces, s); err != nil {
				return "", err
			}
			return sprigNindent(spaces, s), nil
		},
		"replace": func(old, repl, src string) (string, error) {
			n := int64(len(src))
			if len(repl) > len(old) {
				count := int64(len(src) + 1)
				if old != "" {
					count = int64(strings.Count(src, old))
				}
				n += count * int64(len(repl)-len(old))
			}
			if err := b.size(n, func() string { return "replace makes " + byteCount(n) }); err != nil {
				return "", err
			}
			return sprigReplace(old, repl, src), nil
		},
		"join": func(sep string, v any) (string, error) {
			return b.made("join", sprigJoin(sep, v))
		},
		"printf": func(format string, args ...any) (string, error) {
			for _, a := range args {
				if n, ok := a.(int); ok && int64(n) > b.limits.OutputPerTarget && strings.Contains(format, "*") {
					return "", b.size(int64(n), func() string { return fmt.Sprintf("printf pads to %d characters", n) })
				}
			}
			if err := b.ahead("printf", int64(len(format))+argSize(args)); err != nil {
				return "", err
			}
			return b.made("printf", fmt.Sprintf(format, args...))
		},
		"toYaml": func(v any) (string, error) {
			if err := b.encodedSize("toYaml", v, false); err != nil {
				return "", err
			}
			return b.made("toYaml", helmToYAML(v))
		},
		"toJson": func(v any) (string, error) {
			if err := b.check(); err != nil {
				return "", err
			}
			data, err := json.Marshal(v)
			if err != nil {
				return "", nil // Helm swallows it
			}
			return b.made("toJson", string(data))
		},
		"toPrettyJson": func(v any) (string, error) {
			if err := b.encodedSize("toPrettyJson", v, true); err != nil {
				return "", err
			}
			return b.made("toPrettyJson", sprigPrettyJS(v))
		},
		"append": func(list, v any) ([]any, error) { return sprigPush(list, v), b.check() },
		"push":   func(list, v any) ([]any, error) { return sprigPush(list, v), b.check() },
		"concat": func(lists ...any) (any, error) { return sprigConcat(lists...), b.check() },
		"list":   func(v ...any) ([]any, error) { return sprigList(v...), b.check() },
		"dict":   func(v ...any) (map[string]any, error) { return sprigDict(v...), b.check() },
	}
}

// made checks a string a function has made, and counts it.
func (b *budget) made(name, s string) (string, error) {
	if err := b.size(int64(len(s)), func() string { return name + " makes " + byteCount(int64(len(s))) }); err != nil {
		return "", err
	}
	return s, nil
}

// indentSize checks what indent and nindent would make.
func (b *budget) indentSize(name string, spaces int, s string) error {
	n := int64(len(s)) + 1 + int64(max(spaces, 0))*int64(strings.Count(s, "\n")+1)
	return b.size(n, func() string { return fmt.Sprintf("%s %d makes %s", name, spaces, byteCount(n)) })
}

// seqLen is a lower bound of the length of what sprig's seq makes.
func seqLen(params []int) int64 {
	start, end, step := int64(1), int64(0), int64(1)
	switch len(params) {
	case 1:
		end = int64(params[0])
	case 2:
		start, end = int64(params[0]), int64(params[1])
	case 3:
		start, step, end = int64(params[0]), int64(params[1]), int64(params[2])
	default:
		return 0
	}
	if step == 0 {
		return 0
	}
	n := (end - start) / step
	if n < 0 {
		n = -n
	}
	return 2 * n // a digit and a space each, at least
}

// encodedSize checks a lower bound of the size of v's YAML (or, with
// lists, indented JSON), counting the indentation of nested mappings,
// which grows with the square of the depth: a deeply nested value of a
// few KB encodes to GBs.
func (b *budget) encodedSize(name string, v any, lists bool) error {
	s := sizer{limit: b.limits.OutputPerTarget, lists: lists, b: b}
	s.walk(v, 0)
	if s.n > s.limit {
		return b.size(s.n, func() string { return fmt.Sprintf("%s makes more than %s", name, byteCount(s.n)) })
	}
	return b.check()
}

type sizer struct {
	n, limit int64
	lists    bool
	nodes    int
	b        *budget
}

// walk adds a lower bound of the size of v's encoding at depth to s.n,
// and stops once it is over the limit (or the time is up).
func (s *sizer) walk(v any, depth int) {
	if s.n > s.limit {
		return
	}
	if s.nodes++; s.nodes%4096 == 0 && s.b.stop.Load() {
		s.n = s.limit + 1
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			s.n += int64(len(k) + 2 + 2*depth)
			s.walk(e, depth+1)
		}
	case common.Values:
		s.walk(map[string]any(x), depth)
	case []any:
		d := depth
		if s.lists {
			d++
		}
		for _, e := range x {
			s.n += 2
			if s.lists {
				s.n += int64(2 * depth)
			}
			s.walk(e, d)
		}
	case []int:
		s.n += 2 * int64(len(x))
	case []string:
		for _, e := range x {
			s.n += int64(len(e) + 2)
		}
	case string:
		s.n += int64(len(x))
	default:
		s.n++
	}
}
