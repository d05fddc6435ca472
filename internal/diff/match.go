package diff

import (
	"strings"

	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/suggest"
)

// noMatch is the error for a --target pattern that matches no target on
// either side: it lists the nearest target and node names.
func noMatch(pattern string, r *render.Renderer) error {
	var names []string
	for _, t := range r.Targets() {
		names = append(names, t.Node.ID(), t.ID())
	}
	return NoMatch(pattern, names, "")
}

// NoMatch is the error of every --target pattern that matches no target
// (diff, diff --live, status), naming the nearest of names (targets' names,
// with or without their cluster type) and of their parents; what narrows
// "no target" (" that a cluster of the inventory runs").
func NoMatch(pattern string, names []string, what string) error {
	var all []string
	seen := map[string]bool{}
	for _, name := range names {
		parts := strings.Split(name, "/")
		for i := range parts {
			if p := strings.Join(parts[:i+1], "/"); !seen[p] {
				seen[p] = true
				all = append(all, p)
			}
		}
	}
	if len(all) == 0 {
		return suggest.Unknownf("--target %s: the fleet has no targets", pattern)
	}
	return suggest.Unknownf("--target %s matches no target%s (a glob on a target's path, with or without its cluster type, or on a parent node's; %s)",
		pattern, what, suggest.NearestList(pattern, all, suggest.Shown))
}
