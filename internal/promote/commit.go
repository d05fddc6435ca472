package promote

import (
	"path"
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/git"
)

// Unrelated returns the uncommitted changes (git status --porcelain lines
// under config/ and rendered/) that the commit of a promotion step of the
// patch would sweep in but that are not the step's: everything but the
// patch's own files under its component (its copies, a first one written
// by hand included), the files the plan's operations write or remove
// (ops, of a promotion being completed), and rendered/, which the step
// re-renders from config/. A rename is never the step's.
func Unrelated(outRoot, clusterType, component, patch string, ops []Op, dirty []string) []string {
	name := strings.TrimSuffix(patch, ".yaml") + ".yaml"
	dir := "config/" + clusterType + "/" + component + "/"
	var out []string
	for _, l := range dirty {
		p := git.DirtyPath(l)
		switch {
		case strings.Contains(l, " -> "):
		case strings.HasPrefix(p, outRoot+"/"),
			strings.HasPrefix(p, dir) && path.Base(p) == name,
			slices.ContainsFunc(ops, func(o Op) bool { return o.Path == p }):
			continue
		}
		out = append(out, l)
	}
	return out
}
