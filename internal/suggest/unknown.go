package suggest

import (
	"fmt"
	"strings"
)

// UnknownError is a name the user gave (a target, cluster type, component,
// node or cluster) that the fleet does not have; its message lists the
// nearest names that exist. Callers tell it from other errors with
// errors.As: the command line names something that is not there.
type UnknownError struct{ msg string }

func (e *UnknownError) Error() string { return e.msg }

// Unknownf returns an UnknownError with a formatted message.
func Unknownf(format string, args ...any) *UnknownError {
	return &UnknownError{fmt.Sprintf(format, args...)}
}

// NearestList names the candidates for a message, the nearest to s
// first: "one of: a, b" when there are at most n, else "nearest: " and the
// n nearest; "(none)" when there are none.
func NearestList(s string, candidates []string, n int) string {
	if len(candidates) == 0 {
		return "(none)"
	}
	near, more := Nearest(s, candidates, n)
	if more {
		return "nearest: " + strings.Join(near, ", ")
	}
	return "one of: " + strings.Join(near, ", ")
}
