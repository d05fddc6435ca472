package suggest

import (
	"slices"
	"strings"
)

// Distance is the Levenshtein distance between a and b, in bytes.
func Distance(a, b string) int {
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

// Closest returns the candidate nearest to s, ignoring case, when it is
// within limit edits of it, or "". A candidate equal to s is not a
// suggestion.
func Closest(s string, candidates []string, limit int) string {
	best, bestD := "", limit+1
	for _, c := range candidates {
		if c == s {
			continue
		}
		if d := Distance(strings.ToLower(s), strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// Nearest returns at most n of the candidates, the nearest to s first,
// ignoring case (ties keep the candidates' order; a name given twice counts
// once), and whether it left some out. Each distance is computed once, so
// that the nearest of ten thousand targets is quick to find.
func Nearest(s string, candidates []string, n int) ([]string, bool) {
	type scored struct {
		name string
		d    int
	}
	lower := strings.ToLower(s)
	seen := make(map[string]bool, len(candidates))
	all := make([]scored, 0, len(candidates))
	for _, c := range candidates {
		if !seen[c] {
			seen[c] = true
			all = append(all, scored{c, Distance(lower, strings.ToLower(c))})
		}
	}
	slices.SortStableFunc(all, func(a, b scored) int { return a.d - b.d })
	out := make([]string, 0, min(n, len(all)))
	for _, c := range all[:min(n, len(all))] {
		out = append(out, c.name)
	}
	return out, len(all) > n
}
