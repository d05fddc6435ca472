package promote

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/hint"

	"github.com/strata-fleet/strata/internal/suggest"
)

// Options selects the patch to promote and how.
type Options struct {
	ClusterType string
	Component   string
	Patch       string // "patch-001" or "patch-001.yaml"
	// Level is the dimension promotions land at (plural or singular name);
	// "" means config promotion.level, else the second dimension.
	Level string
	// Approve passes manual gates.
	Approve bool
	// Approver, when set, is recorded as having approved each gate the
	// promotion enters ("Name <email>"), in the new copy's metadata (see
	// Approval), at Now (default: the current time).
	Approver string
	Now      time.Time
	// Until, a node ID, keeps a wave that enters it from going past it
	// (strata rollout --until): the wave stops at its last node under
	// Until, and the next promotion completes it.
	Until string
}

// Op is one file operation of a plan.
type Op struct {
	Kind string `json:"op"` // "write" or "remove"
	Path string `json:"path"`
	Data []byte `json:"data,omitempty"`
	// Was is the SHA-256 (hex) of the file's content when the plan was
	// made; "" when there was no file. Apply and Resume refuse to touch a
	// file that has changed since, which would lose that change.
	Was string `json:"was,omitempty"`
}

// Coalesce is the merging of the copies under a node into one at the node.
type Coalesce struct {
	Node string   `json:"node"`
	Into string   `json:"into"`
	From []string `json:"from"`
}

// Plan is what one promotion does.
type Plan struct {
	ClusterType string `json:"clusterType"`
	Component   string `json:"component"`
	Patch       string `json:"patch"`
	Level       string `json:"level"`
	// Found are the patch's files before the promotion, in rollout order.
	Found []string `json:"found"`
	// Target is the node the patch is copied to, and the new file; empty
	// when the patch is at the end of the sequence.
	Target     string `json:"target,omitempty"`
	TargetFile string `json:"targetFile,omitempty"`
	// Wave, when config.yaml's rollout waves: size the step, is its wave:
	// every node it enters (Target the first), each with a new copy.
	Wave *Wave `json:"wave,omitempty"`
	// Gates are the manual gates the promotion passes.
	Gates []string `json:"gates,omitempty"`
	// Approvals are those recorded in TargetFile for Gates (when
	// Options.Approver is set).
	Approvals []Approval `json:"approvals,omitempty"`
	Coalesced []Coalesce `json:"coalesced,omitempty"`
	// Integrated is the values.yaml the patch was folded into, if it was;
	// History the history file the fold is recorded in (see Fold).
	Integrated string `json:"integrated,omitempty"`
	History    string `json:"history,omitempty"`
	// Meta is what the patch says of itself (its latest copy's metadata)
	// and every approval recorded in its copies, this promotion's included:
	// what the commit of the step and the fold's history carry.
	Meta *PatchMeta `json:"metadata,omitempty"`
	// Next is the node a following promotion would copy the patch to.
	Next string `json:"next,omitempty"`
	// Ops are the file operations, writes before removals.
	Ops []Op `json:"ops"`
}

// GateError is a promotion into a manual gate without approval.
type GateError struct {
	Gates []string
	// Command, when set, is the command line to run once approved, as
	// the caller ran it (every flag repeated); else Next.
	Command string
	// Next is the promotion to run once approved, as data.
	Next hint.Command
	// Target is the node the promotion would step to once approved, for
	// the checks a caller makes before asking for the approval.
	Target string
}

func (e *GateError) Error() string { return e.Text(nil) }

// Text is the message with the command to run once approved printed by
// p (hint.Texter).
func (e *GateError) Text(p hint.Printer) string {
	cmd := e.Command
	if cmd == "" {
		cmd = hint.Textf("%s", e.Next).Print(p)
	}
	if len(e.Gates) > 1 {
		return fmt.Sprintf("promotion enters the manual gates %s; approve them with: %s --approve",
			strings.Join(quoteAll(e.Gates), ", "), cmd)
	}
	return fmt.Sprintf("promotion enters the manual gate %s; approve it with: %s --approve",
		strings.Join(quoteAll(e.Gates), ", "), cmd)
}

// ErrNothingToDo is returned when the patch is everywhere it can go.
var ErrNothingToDo = errors.New("nothing to promote")

// state is where the patch is: node ID -> the file's bytes.
type state map[string][]byte

func (s state) covers(n *fleet.Node) bool {
	for p := n; p != nil && p.Depth > 0; p = p.Parent {
		if _, ok := s[p.ID()]; ok {
			return true
		}
	}
	return false
}

// planner holds what Plan works with.
type planner struct {
	f     *fleet.Fleet
	ct    *fleet.ClusterType
	comp  *fleet.Component
	name  string // file name, patch-001.yaml
	level int    // minimal depth of a promotion target
	walk  []*fleet.Node
}

// Prepare computes one promotion, changing nothing.
func Prepare(f *fleet.Fleet, opts Options) (*Plan, error) {
	pl, err := newPlanner(f, opts)
	if err != nil {
		return nil, err
	}
	p := &Plan{ClusterType: pl.ct.Name, Component: pl.comp.Name, Patch: strings.TrimSuffix(pl.name, ".yaml"),
		Level: f.Config.Dimensions[pl.level-1].Name}

	before, found := pl.find()
	for _, n := range found {
		p.Found = append(p.Found, pl.fileOf(n.ID()))
	}
	if len(found) == 0 {
		return nil, pl.noSuchPatch()
	}
	latest := found[len(found)-1]
	if err := pl.checkGaps(before, latest); err != nil {
		return nil, err
	}

	after := maps(before)
	if next := pl.next(after, latest); next != nil {
		nodes, wave := pl.wave(after, next, opts.Until)
		p.Target, p.TargetFile, p.Wave = next.ID(), pl.file(next), wave
		for _, n := range nodes {
			for _, g := range pl.gates(before, n) {
				if !slices.Contains(p.Gates, g) {
					p.Gates = append(p.Gates, g)
				}
			}
		}
		recorded := recordedGates(before[latest.ID()], p.Gates)
		if len(p.Gates) > 0 && !opts.Approve && len(recorded) == len(p.Gates) {
			// Approved while the gate was frozen (kept in the copy's
			// metadata): the approval is taken now.
			p.Approvals = recorded
		} else if len(p.Gates) > 0 && !opts.Approve {
			cmd := hint.Strata("promote", pl.ct.Name, pl.comp.Name, p.Patch)
			if opts.Level != "" {
				// The same promotion: without its level, it could go elsewhere.
				cmd = append(cmd, "--level", opts.Level)
			}
			return nil, &GateError{Gates: p.Gates, Next: cmd, Target: p.Target}
		}
		data := before[latest.ID()]
		if opts.Approver != "" && len(p.Gates) > 0 {
			if data, err = recordGates(p, data, opts); err != nil {
				return nil, fmt.Errorf("recording the approval in %s: %w", p.TargetFile, err)
			}
		}
		for _, n := range nodes {
			after[n.ID()] = data
		}
	}
	promoted := maps(after)

	// Every conflict is collected before refusing: a promotion blocked in
	// several places says so at once, not one place per run.
	coalesced, conflicts, err := pl.coalesce(after)
	if err != nil {
		return nil, err
	}
	p.Coalesced = coalesced
	var newValues []byte
	if pl.everyRootHasIt(after) {
		// Every copy goes: those at the first-dimension nodes, and any left
		// below them (the reference keeps those, and they would start the
		// rollout again). They are folded as one, so they must say the same
		// thing, or some change would be lost.
		var copies []string
		for _, n := range pl.walk {
			if _, ok := after[n.ID()]; ok {
				copies = append(copies, n.ID())
			}
		}
		differ, err := pl.sameContent(after, copies, "fold "+p.Patch+" into "+pl.comp.Values.Path)
		if err != nil {
			return nil, err
		}
		conflicts = append(conflicts, differ...)
		if len(differ) == 0 {
			newValues, err = integrate(pl.comp.Values, pl.name, after[copies[0]])
			if err != nil {
				return nil, err
			}
			p.Integrated = pl.comp.Values.Path
			for _, id := range copies {
				delete(after, id)
			}
		}
	}
	if p.Target == "" && len(p.Coalesced) == 0 && p.Integrated == "" && len(conflicts) == 0 {
		return nil, fmt.Errorf("%s of %s is at the end of the sequence (%s) with nothing to coalesce: %w",
			p.Patch, pl.comp.Name, latest.ID(), ErrNothingToDo)
	}
	changes, err := pl.checkUnchanged(promoted, after, newValues)
	if err != nil {
		return nil, err
	}
	if err := foldConflicts(p.Patch, append(conflicts, changes...)); err != nil {
		return nil, err
	}
	if p.Meta, err = pl.planMeta(before, found, p.Approvals); err != nil {
		return nil, err
	}
	p.Ops = pl.ops(before, after, newValues)
	if p.Integrated != "" {
		op, err := historyOp(pl.comp, p, opts.Now)
		if err != nil {
			return nil, err
		}
		p.History = op.Path
		i := slices.IndexFunc(p.Ops, func(o Op) bool { return o.Kind == "remove" })
		if i < 0 {
			i = len(p.Ops)
		}
		p.Ops = slices.Insert(p.Ops, i, op) // a write: before the removals, in the journal
	}
	if len(after) > 0 {
		if n := pl.next(after, pl.latest(after)); n != nil {
			p.Next = n.ID()
		}
	}
	return p, nil
}

// recordedGates are the approvals of gates that the copy data records
// already (one each: the latest), none when it records none of them.
func recordedGates(data []byte, gates []string) []Approval {
	as, err := Approvals("", data)
	if err != nil {
		return nil
	}
	var out []Approval
	for _, g := range gates {
		for i := len(as) - 1; i >= 0; i-- {
			if as[i].Node == g {
				out = append(out, as[i])
				break
			}
		}
	}
	return out
}

// recordGates records in data the approval of each gate by opts.Approver.
func recordGates(p *Plan, data []byte, opts Options) ([]byte, error) {
	at := opts.Now
	if at.IsZero() {
		at = time.Now()
	}
	for _, g := range p.Gates {
		a := Approval{Node: g, By: opts.Approver, At: at.UTC().Truncate(time.Second)}
		var err error
		if data, err = RecordApproval(data, a); err != nil {
			return nil, err
		}
		p.Approvals = append(p.Approvals, a)
	}
	return data, nil
}

// find returns where the patch is, and its nodes in walk order.
func (pl *planner) find() (state, []*fleet.Node) {
	s := state{}
	var found []*fleet.Node
	for _, n := range pl.walk {
		if lv := pl.comp.Levels[n.ID()]; lv != nil {
			for _, file := range lv.Patches {
				if pathBase(file.Path) == pl.name {
					s[n.ID()] = file.Data
					found = append(found, n)
				}
			}
		}
	}
	return s, found
}

func newPlanner(f *fleet.Fleet, opts Options) (*planner, error) {
	ct := f.ClusterType(opts.ClusterType)
	if ct == nil {
		var names []string
		for _, c := range f.ClusterTypes {
			names = append(names, c.Name)
		}
		return nil, suggest.Unknown("cluster type", opts.ClusterType, names)
	}
	comp := ct.Component(opts.Component)
	if comp == nil {
		var names []string
		for _, c := range ct.Components {
			names = append(names, c.Name)
		}
		return nil, suggest.Unknownf("unknown component %q of cluster type %s (%s)", opts.Component, ct.Name, suggest.NearestList(opts.Component, names, suggest.Shown))
	}
	name := opts.Patch
	if !strings.HasSuffix(name, ".yaml") {
		name += ".yaml"
	}
	if !strings.HasPrefix(name, "patch-") || strings.ContainsAny(name, "/\\") {
		return nil, fmt.Errorf("%q is not a patch name: patches are files named patch-<id>.yaml, named without the extension (patch-001)", opts.Patch)
	}
	level := 2
	switch {
	case opts.Level != "":
		i := f.Config.DimensionIndex(opts.Level)
		if i < 0 {
			var names []string
			for _, d := range f.Config.Dimensions {
				names = append(names, d.Name)
			}
			return nil, suggest.UnknownFlag("--level", "dimension", opts.Level, names)
		}
		level = i + 1
	case f.Config.PromotionLevel != "":
		level = f.Config.DimensionIndex(f.Config.PromotionLevel) + 1
	}
	level = min(level, len(f.Config.Dimensions))
	pl := &planner{f: f, ct: ct, comp: comp, name: name, level: level}
	f.Config.Root.Walk(func(n *fleet.Node) {
		if ct.ExistsAt(n) { // the nodes where ct has targets (config.yaml's at:)
			pl.walk = append(pl.walk, n)
		}
	})
	return pl, nil
}

func (pl *planner) noSuchPatch() error {
	var names []string
	for _, n := range pl.walk {
		if lv := pl.comp.Levels[n.ID()]; lv != nil {
			for _, file := range lv.Patches {
				names = append(names, strings.TrimSuffix(pathBase(file.Path), ".yaml"))
			}
		}
	}
	patch, of := strings.TrimSuffix(pl.name, ".yaml"), pl.ct.Name+"/"+pl.comp.Name
	if at := FoldedAt(pl.comp, patch); at != "" {
		msg := fmt.Sprintf("unknown patch %q of %s: it was folded into values.yaml at %s, as %s/%s records", patch, of, at, pl.comp.Dir, fleet.HistoryFile)
		if len(names) > 0 {
			msg += " (" + suggest.NearestList(patch, names, suggest.Shown) + ")"
		}
		return suggest.Unknownf("%s", msg)
	}
	if len(names) == 0 {
		start := hint.Strata("patch", "new", pl.ct.Name, pl.comp.Name, "--at", pl.walk[0].ID())
		return suggest.Unknownf("unknown patch %q of %s: it has no patches (start one: %s)", patch, of, start)
	}
	return suggest.Unknownf("unknown patch %q of %s (%s)", patch, of, suggest.NearestList(patch, names, suggest.Shown))
}

// checkGaps refuses a patch whose latest location was reached by skipping
// targets: every full-depth target before latest in walk order must have it.
func (pl *planner) checkGaps(s state, latest *fleet.Node) error {
	for _, n := range pl.walk {
		if n == latest {
			return nil
		}
		if len(n.Children) > 0 || s.covers(n) {
			continue
		}
		return &GapError{Latest: latest.ID(), Missing: n.ID()}
	}
	return nil
}

// GapError is a patch whose latest location was reached by skipping a
// target: Missing comes before Latest in rollout order and does not have
// the patch.
type GapError struct{ Latest, Missing string }

func (e *GapError) Error() string {
	return fmt.Sprintf("Gap detected: patch exists at %s but missing from %s", e.Latest, e.Missing)
}

// next returns the first node after latest in walk order that the patch
// does not cover and that is deep enough, or nil.
func (pl *planner) next(s state, latest *fleet.Node) *fleet.Node {
	i := slices.Index(pl.walk, latest)
	for _, n := range pl.walk[i+1:] {
		if s.covers(n) || n.Depth < pl.level {
			continue
		}
		return n
	}
	return nil
}

// latest is the last node of s in walk order.
func (pl *planner) latest(s state) *fleet.Node {
	var out *fleet.Node
	for _, n := range pl.walk {
		if _, ok := s[n.ID()]; ok {
			out = n
		}
	}
	return out
}

// gates lists the manual nodes the patch enters by its copy at next, top
// down: next and its ancestors that it has not entered yet, and the nodes
// below next (a promotion above the level of a gate passes it too).
func (pl *planner) gates(s state, next *fleet.Node) []string {
	var nodes []*fleet.Node
	for n := next; n != nil && n.Depth > 0; n = n.Parent {
		nodes = append([]*fleet.Node{n}, nodes...)
	}
	next.Walk(func(n *fleet.Node) { nodes = append(nodes, n) })
	var out []string
	for _, n := range nodes {
		if n.Gate == fleet.GateManual && !s.touches(n) {
			out = append(out, n.ID())
		}
	}
	return out
}

// touches reports whether the patch has entered node n: it has a copy at
// n, under n, or above n.
func (s state) touches(n *fleet.Node) bool {
	for id := range s {
		if id == n.ID() || strings.HasPrefix(id, n.ID()+"/") || strings.HasPrefix(n.ID(), id+"/") {
			return true
		}
	}
	return false
}

func (pl *planner) file(n *fleet.Node) string {
	return pl.comp.Dir + "/" + n.ID() + "/" + pl.name
}

func (pl *planner) everyRootHasIt(s state) bool {
	for _, n := range pl.f.Config.Root.Children {
		if _, ok := s[n.ID()]; !ok && pl.ct.ExistsAt(n) {
			return false
		}
	}
	return len(pl.f.Config.Root.Children) > 0
}

func maps(s state) state {
	out := make(state, len(s))
	for k, v := range s {
		out[k] = v
	}
	return out
}

func pathBase(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
