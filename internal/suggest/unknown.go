package suggest

import (
	"strings"

	"github.com/strata-fleet/strata/internal/hint"
)

// Shown is how many names an error suggests at most: the nearest few, never
// the thousands of targets of a large fleet.
const Shown = 5

// UnknownError is a name the user gave (a target, node, cluster type,
// component, patch, cluster, dimension or kubeconfig context) that is not
// there, or that names several things; its message lists the nearest names
// that exist. Callers tell it from other errors with errors.As: the command
// line names something that is not there (strata exits 2, usage).
type UnknownError struct {
	msg string
	// text, when set, is the message with the commands it names as data.
	text hint.Text
}

func (e *UnknownError) Error() string {
	if e.msg == "" {
		return e.text.String()
	}
	return e.msg
}

// Text is the message with the commands it names printed by p
// (hint.Texter).
func (e *UnknownError) Text(p hint.Printer) string {
	if e.msg == "" {
		return e.text.Print(p)
	}
	return e.msg
}

// Unknownf returns an UnknownError with a formatted message. Prefer Unknown
// and UnknownFlag, which word every such error alike. Its hint.Command
// arguments stay data (hint.Textf), printed by whoever prints it.
func Unknownf(format string, args ...any) *UnknownError {
	t := hint.Textf(format, args...)
	if len(t.Commands()) > 0 {
		return &UnknownError{text: t}
	}
	return &UnknownError{msg: t.String()}
}

// Unknown is the error for name, a kind of name ("target", "node",
// "cluster type", ...) typed as an argument, that is none of names, worded
// as every command words it:
//
//	unknown node "stagin" (one of: integration, staging, production)
//	unknown target "prod/us-eas1" (nearest: prod/us-east1, prod/us-east2, ...)
//	unknown cluster "mc-1" (there are none)
func Unknown(kind, name string, names []string) *UnknownError {
	return Unknownf("unknown %s %q (%s)", kind, name, list(name, names))
}

// UnknownFlag is Unknown for a name given to a flag:
//
//	--until: unknown node "stagin" (nearest: staging, ...)
func UnknownFlag(flag, kind, name string, names []string) *UnknownError {
	return Unknownf("%s: unknown %s %q (%s)", flag, kind, name, list(name, names))
}

func list(name string, names []string) string {
	if len(names) == 0 {
		return "there are none"
	}
	return NearestList(name, names, Shown)
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
