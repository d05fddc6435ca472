package inflight

import (
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
)

// knownRollout reports whether id, a Strata-Rollout trailer anyone can
// write, names a patch of f: its cluster type and component, the patch a
// plain name (no glob to match every patch's files).
func knownRollout(f *fleet.Fleet, id string) bool {
	parts := strings.Split(id, "/")
	if len(parts) != 3 || !plainName(parts[2]) {
		return false
	}
	ct := f.ClusterType(parts[0])
	return ct != nil && ct.Component(parts[1]) != nil
}

// plainName reports whether s is a name with no pattern in it: a letter
// or digit, then letters, digits, '.', '-' and '_'.
func plainName(s string) bool {
	if s == "" || strings.HasPrefix(s, ".") || strings.HasPrefix(s, "-") {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}
