package render

import (
	"strings"
	"text/template/parse"

	"github.com/strata-fleet/strata/internal/values"
)

// Most actions left for pass 2 are references to a value that is a string
// ("{{ .Values.cluster.region }}"), such a reference with a default
// ("{{ .Values.cluster.repoURL | default \"https://...\" }}"), or string
// constants (what an escape for Argo CD such as {{`{{ .name }}`}} leaves).
// Each prints a string as it is, so pass 2 of a target whose actions are all
// of these takes the strings from its values without running Helm's engine,
// whose fixed cost (its function map, parsing the text) is most of a
// target's pass 2.
//
// This gives the engine's output only where nothing can differ: a
// reference is taken this way only when every key of its path is there
// under a map and what it reaches is a string (with a default: or an empty
// string, or null, or, unless missing keys are errors, a last key that is
// not there, which all give the default). Any other value (a missing key, a
// number, a map, a string holding "<no value>", which the engine removes),
// and any other action, sends the target's actions to the engine, as
// before.

// direct is an action that direct.go evaluates: the path under .Values of
// the value it prints, or, when path is nil, the constant it prints. With
// orDefault, the constant is the default of the value at path.
type direct struct {
	path      []string
	constant  string
	orDefault bool
}

// directActions returns how each of actions is evaluated without the
// engine, or nil when one of them needs it.
func directActions(actions []*parse.ActionNode) []direct {
	out := make([]direct, 0, len(actions))
	for _, a := range actions {
		d, ok := directAction(a.Pipe)
		if !ok {
			return nil
		}
		out = append(out, d)
	}
	return out
}

// directAction is directActions for one action's pipeline: a string
// constant, a reference under .Values or $.Values, or such a reference
// piped into default with a string constant.
func directAction(pipe *parse.PipeNode) (direct, bool) {
	cmds := pipe.Cmds
	if len(pipe.Decl) > 0 || len(cmds) == 0 || len(cmds) > 2 || len(cmds[0].Args) != 1 {
		return direct{}, false
	}
	var d direct
	switch n := cmds[0].Args[0].(type) {
	case *parse.StringNode:
		if len(cmds) > 1 || !printsAsItIs(n.Text) {
			return direct{}, false
		}
		return direct{constant: n.Text}, true
	case *parse.FieldNode: // .Values.a.b
		if len(n.Ident) < 2 || n.Ident[0] != "Values" {
			return direct{}, false
		}
		d.path = n.Ident[1:]
	case *parse.VariableNode: // $.Values.a.b
		if len(n.Ident) < 3 || n.Ident[0] != "$" || n.Ident[1] != "Values" {
			return direct{}, false
		}
		d.path = n.Ident[2:]
	default:
		return direct{}, false
	}
	if len(cmds) == 1 {
		return d, true
	}
	// | default "..."
	args := cmds[1].Args
	if len(args) != 2 {
		return direct{}, false
	}
	fn, isIdent := args[0].(*parse.IdentifierNode)
	def, isString := args[1].(*parse.StringNode)
	if !isIdent || fn.Ident != "default" || !isString || !printsAsItIs(def.Text) {
		return direct{}, false
	}
	d.constant, d.orDefault = def.Text, true
	return d, true
}

// directResults returns the results of the actions of plans (n of them in
// all) with the values vals, or false when one of them needs the engine.
// When strict, a reference to a missing key is an error: the engine's.
func directResults(plans []*docPlan, n int, vals *values.Value, strict bool) ([]string, bool) {
	if n == 0 {
		return nil, true
	}
	v := goValues(vals, true)
	results := make([]string, 0, n)
	for _, p := range plans {
		if p == nil {
			continue
		}
		if p.direct == nil {
			return nil, false
		}
		for _, d := range p.direct {
			if d.path == nil {
				results = append(results, d.constant)
				continue
			}
			s, ok := d.eval(v, strict)
			if !ok {
				return nil, false
			}
			results = append(results, s)
		}
	}
	return results, true
}

// follow walks path under v, through maps. It returns the value at its end
// and len(path); or, at the first key that is missing or whose mapping is
// not a map, the value it reached there and the number of keys it followed.
func follow(v map[string]any, path []string) (any, int) {
	var cur any = v
	for i, k := range path {
		m, isMap := cur.(map[string]any)
		if !isMap {
			return cur, i
		}
		next, found := m[k]
		if !found {
			return cur, i
		}
		cur = next
	}
	return cur, len(path)
}

// eval returns what the reference d prints with the values v, when
// direct.go can tell.
func (d direct) eval(v map[string]any, strict bool) (string, bool) {
	cur, n := follow(v, d.path)
	if n < len(d.path) {
		// The last key missing from a map gives null when missing keys are
		// not errors; any other missing key is an error.
		if _, isMap := cur.(map[string]any); !isMap || n < len(d.path)-1 || !d.orDefault || strict {
			return "", false
		}
		cur = nil
	}
	s, isString := cur.(string)
	switch {
	case d.orDefault && (cur == nil || isString && s == ""):
		return d.constant, true
	case !isString || !printsAsItIs(s):
		return "", false
	}
	return s, true
}

// printsAsItIs reports whether the engine's output of a string is the
// string: the engine removes "<no value>" from what it renders, and pass
// 2's results are separated by actionSep.
func printsAsItIs(s string) bool {
	return !strings.Contains(s, "<no value>") && !strings.Contains(s, actionSep)
}
