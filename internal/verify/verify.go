package verify

import (
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/strata-fleet/strata/internal/diff"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/hint"
	"github.com/strata-fleet/strata/internal/promote"
)

// The rules a finding names.
const (
	RuleGap     = "gap"
	RuleGate    = "gate"
	RuleEdited  = "edited-in-gate"
	RuleRemoved = "removed-in-gate"
	RuleOutside = "outside-patch"
)

// Options says what to verify.
type Options struct {
	// Base is the fleet before the change, Head the fleet after it.
	Base *diff.Revision
	Head fs.FS
	// Trailers are the approvals the change's commit messages record
	// (ParseTrailer); one whose Node is "" approves every gate.
	Trailers []promote.Approval
}

// Finding is one rule the change breaks.
type Finding struct {
	// File and Line are where: the patch file, or the changed file that
	// reaches the target.
	File string `json:"file"`
	Line int    `json:"line"`
	// Target is the target or the node concerned ("production/prod-1/eu",
	// prefixed with the cluster type when the fleet has several).
	Target  string `json:"target"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
	// Text is Message with the strata commands it names for the user to
	// run as data (package hint: the CLI prints them with its --root);
	// zero when it names none.
	Text hint.Text `json:"-"`
	// Revisions are the revisions the change moves for the target, by
	// name (outside-patch: a pin's change).
	Revisions []RevisionMove `json:"revisions,omitempty"`
}

// RevisionMove is a revision a change moves for a target: its root's (a
// node's revision:, Name fleet.RootRevisionName) or a named one (config.yaml's
// revisions:, Name its name).
type RevisionMove struct {
	Name string `json:"name"`
	From string `json:"from"`
	To   string `json:"to"`
}

// Result is the verdict on a change.
type Result struct {
	Base       string `json:"base"`
	BaseCommit string `json:"baseCommit"`
	// Targets is the number of targets compared, Changed how many of them
	// change.
	Targets  int       `json:"targets"`
	Changed  int       `json:"changed"`
	Findings []Finding `json:"findings"`
	// Note says why nothing was checked, when it was not.
	Note string `json:"note,omitempty"`
}

// Summary is one line about the result.
func (r *Result) Summary() string {
	s := fmt.Sprintf("%d of %d targets change", r.Changed, r.Targets)
	if r.Note != "" {
		s += "; " + r.Note
	}
	switch n := len(r.Findings); n {
	case 0:
		return s + "; no findings"
	case 1:
		return s + "; 1 finding"
	default:
		return fmt.Sprintf("%s; %d findings", s, n)
	}
}

// Check verifies the change from opts.Base to opts.Head.
func Check(opts Options) (*Result, error) {
	full, err := diff.Compare(diff.Options{Base: opts.Base, Head: opts.Head})
	if err != nil {
		return nil, err
	}
	res := &Result{Base: opts.Base.Rev, BaseCommit: opts.Base.Commit, Targets: full.Targets, Changed: full.Changed, Findings: []Finding{}}
	if opts.Base.Empty {
		res.Note = "the base has no fleet: nothing to verify against"
		return res, nil
	}
	c, err := newChecker(opts)
	if err != nil {
		return nil, err
	}
	c.patches()
	if err := c.frozen(full); err != nil {
		return nil, err
	}
	if len(full.Changes) > 0 {
		if err := c.outside(full); err != nil {
			return nil, err
		}
	}
	res.Findings = c.findings
	sort.SliceStable(res.Findings, func(i, j int) bool {
		a, b := res.Findings[i], res.Findings[j]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	return res, nil
}

// checker holds both fleets and the findings so far.
type checker struct {
	opts       Options
	base, head *fleet.Fleet
	findings   []Finding
	// integrated are the components into whose values.yaml the change
	// folds a patch.
	integrated map[componentKey]bool
}

func newChecker(opts Options) (*checker, error) {
	base, err := fleet.Load(opts.Base.FS)
	if err != nil {
		return nil, fmt.Errorf("the fleet at %s: %w", opts.Base.Rev, err)
	}
	head, err := fleet.Load(opts.Head)
	if err != nil {
		return nil, err
	}
	return &checker{opts: opts, base: base, head: head, integrated: map[componentKey]bool{}}, nil
}

func (c *checker) add(f Finding) { c.findings = append(c.findings, f) }

// name is how findings name the node id of cluster type ct.
func (c *checker) name(ct, id string) string {
	if len(c.head.ClusterTypes) > 1 {
		return ct + "/" + id
	}
	return id
}

// gates are the manual gates at n and above it, outermost first.
func gates(n *fleet.Node) []string {
	var out []string
	for p := n; p != nil && p.Depth > 0; p = p.Parent {
		if p.Gate == fleet.GateManual {
			out = append([]string{p.ID()}, out...)
		}
	}
	return out
}

// gatesAround are the manual gates a change at n reaches: at n, above it
// and below it.
func gatesAround(n *fleet.Node) []string {
	out := gates(n)
	n.Walk(func(d *fleet.Node) {
		if d.Gate == fleet.GateManual {
			out = append(out, d.ID())
		}
	})
	return out
}

// approvedByTrailer reports whether a commit trailer of the change approves
// the gate.
func (c *checker) approvedByTrailer(gate string) bool {
	for _, a := range c.opts.Trailers {
		if a.Node == "" || a.Node == gate {
			return true
		}
	}
	return false
}

// unapproved returns the gates that neither the trailers nor approvals
// approve.
func (c *checker) unapproved(gs []string, approvals []promote.Approval) []string {
	var out []string
	for _, g := range gs {
		ok := c.approvedByTrailer(g)
		for _, a := range approvals {
			ok = ok || a.Node == g
		}
		if !ok {
			out = append(out, g)
		}
	}
	return out
}

// ParseTrailer reads the value of an Approved-by trailer: "Name <email>",
// optionally followed by " for NODE[, NODE...]".
func ParseTrailer(v string) []promote.Approval {
	v = strings.TrimSpace(v)
	if i := strings.LastIndex(v, " for "); i > 0 && !strings.Contains(v[i:], ">") {
		var out []promote.Approval
		for _, n := range strings.Split(v[i+len(" for "):], ",") {
			n = strings.Trim(strings.TrimSpace(n), "/")
			if n == "" || strings.ContainsAny(n, " \t") {
				return []promote.Approval{{By: v}}
			}
			out = append(out, promote.Approval{Node: n, By: strings.TrimSpace(v[:i])})
		}
		return out
	}
	return []promote.Approval{{By: v}}
}

// firstDiffLine is the first line (1-based) of b that differs from a.
func firstDiffLine(a, b []byte) int {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range lb {
		if i >= len(la) || la[i] != lb[i] {
			return i + 1
		}
	}
	return max(1, len(lb))
}
