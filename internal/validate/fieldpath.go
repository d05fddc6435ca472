package validate

import (
	"strconv"
	"strings"
)

// parsePath splits a field path as the API server writes it
// (spec.sources[0].helm.parameters[1].name, metadata.annotations[a.b/c])
// into its segments: field names, list indexes and map keys.
func parsePath(p string) []string {
	var segs []string
	for len(p) > 0 {
		switch p[0] {
		case '.':
			p = p[1:]
		case '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return append(segs, p[1:])
			}
			segs = append(segs, p[1:end])
			p = p[end+1:]
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			segs = append(segs, p[:end])
			p = p[end:]
		}
	}
	return segs
}

// isIndex reports whether a path segment is a list index.
func isIndex(seg string) bool {
	n, err := strconv.Atoi(seg)
	return err == nil && n >= 0
}

// closest returns the candidate nearest to s by edit distance when it is near
// enough to be a likely typo, or "".
func closest(s string, candidates []string) string {
	best, bestD := "", len(s)/3+2
	for _, c := range candidates {
		if c == s {
			continue
		}
		if d := distance(strings.ToLower(s), strings.ToLower(c)); d < bestD {
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
