package inflight

import (
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
)

// knownRollout reports whether id, the value of a Strata-Rollout trailer,
// names a patch of f: <type>/<component>/<patch>, the cluster type and
// the component f's, the patch a plain file name (letters, digits, '.',
// '-', '_'). A trailer anyone can write into a commit must not make
// rollout --all run a phantom patch: a glob ('*') matched every patch's
// files, a name that is not f's names nothing to roll out.
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
