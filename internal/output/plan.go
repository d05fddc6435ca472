package output

import (
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/render"
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

// TargetOf returns the target (<cluster type>/<node>) of a slash path under
// rendered/ in a fleet of depth dimensions, or "" for a path that is not
// inside a target's directory.
func TargetOf(depth int, p string) string {
	rest, ok := strings.CutPrefix(p, render.OutputDir+"/")
	if !ok {
		return ""
	}
	parts := strings.Split(rest, "/")
	if len(parts) < depth+2 {
		return ""
	}
	return strings.Join(parts[:depth+1], "/")
}

// Targets are the targets whose files the plan changes, in order.
func (p *Plan) Targets(depth int) []string {
	var out []string
	for _, c := range p.Changes {
		if id := TargetOf(depth, c.Path); id != "" && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}
