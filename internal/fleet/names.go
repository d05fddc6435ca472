package fleet

import (
	"fmt"
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

// closest returns the candidate nearest to s by edit distance, when it is
// near enough to be a likely typo, or "".
func closest(s string, candidates []string) string {
	best, bestD := "", len(s)/2+2
	for _, c := range candidates {
		if d := distance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// choices formats names as a list for messages.
func choices(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}
