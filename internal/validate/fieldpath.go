package validate

import (
	"github.com/strata-fleet/strata/internal/suggest"
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
	return suggest.Closest(s, candidates, len(s)/3+1)
}
