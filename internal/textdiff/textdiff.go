package textdiff

import (
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// Unified is a unified diff from before (named from) to after (named to),
// with context lines around each change; "" when they are equal.
func Unified(from, to string, before, after []byte, context int) string {
	text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: lines(before), B: lines(after), FromFile: from, ToFile: to, Context: context,
	})
	if err != nil {
		return ""
	}
	return text
}

// lines splits data into lines that keep their line breaks; a last line
// without one gets Git's marker.
func lines(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	out := strings.SplitAfter(string(data), "\n")
	if out[len(out)-1] == "" {
		out = out[:len(out)-1]
	} else {
		out[len(out)-1] += "\n\\ No newline at end of file\n"
	}
	return out
}
