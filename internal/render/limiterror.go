package render

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/strata-fleet/strata/internal/values"
)

// LimitError is a render that went over one of config.yaml's render.limits
// (limits.go).
type LimitError struct {
	// Limit is the limit's key under render.limits; Value its value.
	Limit, Value string
	// Msg says what went over it.
	Msg string
	// Where, when known, is the template that went over it (a template
	// name and line, from Helm's error).
	Where string
	// Pos and Path, when known, are the value whose template went over it.
	Pos  values.Pos
	Path []string
	// Set is where config.yaml sets the limit (zero for the default).
	Set values.Pos
	// Abandoned is true when the render did not stop: it was left running
	// (limits.go), and the command must fail and exit.
	Abandoned bool
}

func (e *LimitError) Error() string {
	var b strings.Builder
	if len(e.Path) > 0 {
		b.WriteString(values.PathString(e.Path) + ": ")
	}
	fmt.Fprintf(&b, "%s, over render.limits.%s (%s)", e.Msg, e.Limit, e.Value)
	if e.Where != "" {
		b.WriteString("\n    at " + e.Where)
	}
	if e.Pos.File != "" {
		b.WriteString("\n    " + e.Pos.String())
	}
	b.WriteString("\n    " + e.Hint())
	return b.String()
}

// Hint says how to raise the limit.
func (e *LimitError) Hint() string {
	if e.Set.File != "" {
		return fmt.Sprintf("a template that runs away, or a limit too low: raise render.limits.%s at %s if the templates need more", e.Limit, e.Set)
	}
	return fmt.Sprintf("a template that runs away, or a limit too low: set render.limits.%s in config.yaml (default %s) if the templates need more", e.Limit, e.Value)
}

// execAtRE finds where text/template's error for a failed function call
// says the call is: the template, line and column, and the call.
var execAtRE = regexp.MustCompile(`([^\s:()"]+:\d+:\d+): executing "[^"]*" at <([^>]*)>: error calling`)

// located returns e with where the failed call of a Helm error err is: the
// value of vals whose template holds it, or else its template and line in
// the chart in directory chart ("" in pass 2, builtinSource).
func (e *LimitError) located(err error, chart string, vals *values.Value) *LimitError {
	out := *e
	if err == nil {
		return &out
	}
	msg := err.Error()
	m := execAtRE.FindAllStringSubmatch(msg, -1)
	if m == nil {
		return &out
	}
	last := m[len(m)-1] // the innermost call
	// A template in a value (through tpl in pass 1, or pass 2).
	if vals != nil {
		if v, path := findTemplate(vals, strings.Join(strings.Fields(last[2]), " ")); v != nil {
			out.Pos, out.Path = v.Pos, path
			return &out
		}
	}
	_, rel, _ := strings.Cut(last[1], "/") // Helm names templates <chart name>/templates/...
	switch chart {
	case "":
		out.Where = "a template in the values: " + last[2]
	case builtinSource:
		out.Where = "(built-in chart) " + rel + ": " + last[2]
	default:
		out.Where = chart + "/" + rel + ": " + last[2]
	}
	return &out
}

// findTemplate returns the first string of v that holds a template with
// the call expr (spaces normalized), and its path.
func findTemplate(v *values.Value, expr string) (*values.Value, []string) {
	var rev []string // the path, innermost key first
	var find func(v *values.Value) *values.Value
	find = func(v *values.Value) *values.Value {
		switch v.Kind {
		case values.String:
			if strings.Contains(v.Text, "{{") && strings.Contains(strings.Join(strings.Fields(v.Text), " "), expr) {
				return v
			}
		case values.Map:
			for i, k := range v.Keys {
				if f := find(v.Vals[i]); f != nil {
					rev = append(rev, k)
					return f
				}
			}
		case values.List:
			for i, it := range v.Items {
				if f := find(it); f != nil {
					rev = append(rev, strconv.Itoa(i))
					return f
				}
			}
		}
		return nil
	}
	found := find(v)
	slices.Reverse(rev)
	return found, rev
}
