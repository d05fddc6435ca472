package values

import (
	"fmt"
	"strings"
)

// Error is a problem with data from a file: what is wrong, at which key path,
// and where. It prints as cue does:
//
//	applications.cert-manager.source: expected a mapping, got a list
//	    config/management-cluster/cert-manager/production/override.yaml:4:7
type Error struct {
	Pos  Pos
	Path []string
	Msg  string
	// Also lists further positions that take part in the error (the first
	// definition of a duplicate key, the other side of a conflict).
	Also []Pos
	// Hint says what would be right, when the message alone does not.
	Hint string
}

func (e *Error) Error() string {
	var b strings.Builder
	if len(e.Path) > 0 {
		b.WriteString(PathString(e.Path))
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	for _, p := range append([]Pos{e.Pos}, e.Also...) {
		if p.File != "" {
			fmt.Fprintf(&b, "\n    %s", p)
		}
	}
	if e.Hint != "" {
		b.WriteString("\n    ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// Errorf returns an *Error at pos.
func Errorf(pos Pos, path []string, format string, args ...any) *Error {
	return &Error{Pos: pos, Path: path, Msg: fmt.Sprintf(format, args...)}
}

// TypeError reports a value of the wrong kind, with a hint on how to write
// the right one.
func TypeError(v *Value, path []string, want Kind) *Error {
	e := Errorf(v.Pos, path, "expected %s, got %s", Article(want), Article(v.Kind))
	switch want {
	case Map:
		e.Hint = `write it as a mapping: "key: value" lines indented under it (or {key: value}), not a list of "- item"`
	case List:
		e.Hint = `write it as a list: one "- item" line per item (or [a, b])`
	case String:
		e.Hint = "write it as a string; quote it if it would read as a number, a boolean or null"
	}
	return e
}

// Article spells a kind with its indefinite article: "a mapping", "an
// integer", "null".
func Article(k Kind) string {
	switch k {
	case Null:
		return "null"
	case Int:
		return "an " + k.String()
	}
	return "a " + k.String()
}
