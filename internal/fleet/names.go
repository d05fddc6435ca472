package fleet

import (
	"fmt"
	"github.com/strata-fleet/strata/internal/suggest"
	"strings"

	"github.com/strata-fleet/strata/internal/values"
)

// checkName reports whether s can be used as one path segment.
func checkName(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("name is empty")
	case s == "." || s == "..":
		return fmt.Errorf("name %q is not allowed", s)
	case strings.ContainsAny(s, "/\\\x00"):
		return fmt.Errorf("name %q must not contain '/', '\\' or NUL", s)
	case strings.TrimSpace(s) != s:
		return fmt.Errorf("name %q must not start or end with spaces", s)
	}
	return nil
}

// nameError reports a name that checkName refuses, at pos.
func nameError(pos values.Pos, path []string, err error) *values.Error {
	return &values.Error{Pos: pos, Path: path, Msg: err.Error(),
		Hint: "names are path segments (they name directories under config/ and rendered/): use letters, digits, '-', '_' and '.', without '/', and not '.' or '..'"}
}

// closest returns the candidate nearest to s when it is near enough to be
// a likely typo, or "".
func closest(s string, candidates []string) string {
	return suggest.Closest(s, candidates, len(s)/2+1)
}

// choices formats names as a list for messages.
func choices(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}
