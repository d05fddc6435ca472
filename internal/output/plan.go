package output

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
