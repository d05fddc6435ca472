package output

import (
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
)

// Op is what a change does to a file.
type Op string

// The operations of a plan.
const (
	Create Op = "create"
	Update Op = "update"
	Delete Op = "delete"
)

// Change is one file operation of a plan.
type Change struct {
	Op   Op     `json:"op"`
	Path string `json:"path"` // slash path relative to the repository
}

// Plan is the changes that bring rendered/ to the desired state.
type Plan struct {
	Changes []Change // writes first (in path order), then deletions
	// Dirs are the stale directories removed with their files, deepest
	// first.
	Dirs []string
	// Unchanged counts the desired files already up to date (for Run, with
	// the files of the targets it did not need to render).
	Unchanged int
}

// Empty reports whether the plan changes nothing.
func (p *Plan) Empty() bool { return len(p.Changes) == 0 && len(p.Dirs) == 0 }

// Count returns how many changes of op the plan holds.
func (p *Plan) Count(op Op) int {
	n := 0
	for _, c := range p.Changes {
		if c.Op == op {
			n++
		}
	}
	return n
}

// TargetOf returns the target (<cluster type>/<node>) of the fleet
// configured by c whose output holds the slash path p, or "" for a path
// that is not inside a target's directory nor its values file. With a
// layout of config.yaml, only its targets have a directory.
func TargetOf(c *fleet.Config, p string) string {
	if c.Layout.Default() { // by its path alone: a target config.yaml no longer has too
		rest, ok := strings.CutPrefix(p, fleet.DefaultOutputRoot+"/")
		parts := strings.Split(rest, "/")
		if !ok || len(parts) < len(c.Dimensions)+2 {
			return ""
		}
		return strings.Join(parts[:len(c.Dimensions)+1], "/")
	}
	t, ok := c.TargetAt(p)
	if ok && (strings.HasPrefix(p, c.TargetDir(t.ClusterType, t.Node)+"/") || p == c.Layout.ValuesFile(t.ClusterType, t.Node)) {
		return t.ID()
	}
	return ""
}

// Targets are the targets of the fleet configured by c whose files the
// plan changes, in order.
func (p *Plan) Targets(c *fleet.Config) []string {
	var out []string
	for _, ch := range p.Changes {
		if id := TargetOf(c, ch.Path); id != "" && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}
