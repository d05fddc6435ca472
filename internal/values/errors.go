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

// TypeError reports a value of the wrong kind.
func TypeError(v *Value, path []string, want Kind) *Error {
	return Errorf(v.Pos, path, "expected a %s, got %s", want, article(v.Kind))
}

func article(k Kind) string {
	switch k {
	case Null:
		return "null"
	case Int, List:
		return "an " + k.String()
	}
	return "a " + k.String()
}
