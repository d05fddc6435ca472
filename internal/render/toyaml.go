package render

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"
)

// helmToYAML does what Helm's toYaml does: sigs.k8s.io/yaml.Marshal, less
// the trailing newline, and "" on an error.
//
// That Marshal encodes v as JSON, decodes the JSON with go.yaml.in/yaml/v2
// (which picks int or float for each number by its text) and encodes the
// result with go.yaml.in/yaml/v2. The first two steps were two thirds of
// toYaml's cost, which is a large part of rendering an item. For the
// values templates hand to toYaml (what values.Value.Shared makes, and
// what sprig's dict and list make of them), yamlObject builds what the
// JSON decodes to directly, so only the last step runs, on the same
// object, and emitYAML (emit.go) writes what that step writes for most
// objects without it: the bytes are Marshal's (TestToYAMLAsHelm,
// TestEmitAsYAMLv2, FuzzToYAML). Anything else takes Marshal's way.
func helmToYAML(v any) string {
	if obj, ok := yamlObject(v, 0); ok {
		if text, ok := emitYAML(obj); ok { // what the last step writes, directly (emit.go)
			return strings.TrimSuffix(text, "\n")
		}
		if data, err := yamlv2.Marshal(obj); err == nil {
			return strings.TrimSuffix(string(data), "\n")
		}
	}
	return marshalToYAML(v)
}

// marshalToYAML is sigs.k8s.io/yaml.Marshal's way.
func marshalToYAML(v any) string {
	data, err := yaml.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(data), "\n")
}

// maxJSONKey is the longest key yamlObject takes: json writes a character
// as at most 6 (\u0026), and 170 of them and the quotes stay within
// yaml.v2's 1,024.
const maxJSONKey = 170

// maxYAMLDepth bounds yamlObject's recursion (encoding/json stops far
// deeper; such values take Marshal's way).
const maxYAMLDepth = 100

// yamlObject returns what go.yaml.in/yaml/v2 decodes json.Marshal(v) to,
// or false when v holds anything whose round trip it does not know.
func yamlObject(v any, depth int) (any, bool) {
	if depth > maxYAMLDepth {
		return nil, false
	}
	switch x := v.(type) {
	case nil:
		return nil, true
	case bool:
		return x, true
	case string:
		return x, jsonRoundTrips(x)
	case int:
		return x, true
	case int64:
		return yamlInt(x), true
	case float64:
		return jsonNumber(x)
	case map[string]any:
		if x == nil {
			return nil, true // json: null
		}
		out := make(map[any]any, len(x))
		for k, e := range x {
			// "<<" is YAML's merge key: not worth knowing how a quoted one decodes.
			// A key longer than maxJSONKey may pass yaml.v2's bound on a key (1,024
			// characters) once json escapes it (& is \u0026), and then Marshal fails.
			if k == "<<" || len(k) > maxJSONKey || !jsonRoundTrips(k) {
				return nil, false
			}
			o, ok := yamlObject(e, depth+1)
			if !ok {
				return nil, false
			}
			out[k] = o
		}
		return out, true
	case []any:
		if x == nil {
			return nil, true // json: null
		}
		out := make([]any, len(x))
		for i, e := range x {
			o, ok := yamlObject(e, depth+1)
			if !ok {
				return nil, false
			}
			out[i] = o
		}
		return out, true
	}
	return nil, false
}

// jsonNumber is what go.yaml.in/yaml/v2 decodes json.Marshal(f) to: json
// writes a whole number below 1e21 as its shortest digits padded with
// zeros, which decode to an int (or a uint64) when they fit one; every
// other finite number as the shortest text that reads back as f, which
// decodes to f.
func jsonNumber(f float64) (any, bool) {
	switch abs := math.Abs(f); {
	case math.IsInf(f, 0) || math.IsNaN(f):
		return nil, false // json refuses them
	case f != math.Trunc(f) || abs >= 1e21:
		return f, true
	case abs < 1<<53:
		return yamlInt(int64(f)), true
	}
	text := strconv.FormatFloat(f, 'f', -1, 64)
	if i, err := strconv.ParseInt(text, 10, 64); err == nil {
		return yamlInt(i), true
	}
	if u, err := strconv.ParseUint(text, 10, 64); err == nil {
		return u, true
	}
	return f, true
}

// yamlInt is how go.yaml.in/yaml/v2 decodes an integer: an int when it
// fits one.
func yamlInt(i int64) any {
	if int64(int(i)) == i {
		return int(i)
	}
	return i
}

// jsonRoundTrips reports whether the JSON encoding of s decodes to s with
// go.yaml.in/yaml/v2: json writes invalid UTF-8 as U+FFFD, and writes
// some characters unescaped that the YAML reader refuses (DEL, the C1
// controls, U+FFFE, U+FFFF) or reads as a line break (NEL, U+0085); the
// byte order mark is left out too.
func jsonRoundTrips(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < utf8.RuneSelf {
			if c == 0x7f {
				return false
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || r >= 0x80 && r <= 0x9f || r == 0xfeff || r == 0xfffe || r == 0xffff {
			return false
		}
		i += n - 1
	}
	return true
}
