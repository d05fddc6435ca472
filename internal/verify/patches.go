package verify

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/hint"
	"github.com/strata-fleet/strata/internal/promote"
	"github.com/strata-fleet/strata/internal/values"
)

// patchKey names a patch: its cluster type, component and name.
type patchKey struct{ ct, comp, name string }

// copies are a patch's files: node ID -> the file.
type copies map[string]*fleet.File

// patchCopies lists every patch of f with its copies.
func patchCopies(f *fleet.Fleet) map[patchKey]copies {
	out := map[patchKey]copies{}
	for _, ct := range f.ClusterTypes {
		for _, comp := range ct.Components {
			for id, l := range comp.Levels {
				for _, p := range l.Patches {
					k := patchKey{ct.Name, comp.Name, strings.TrimSuffix(p.Path[strings.LastIndexByte(p.Path, '/')+1:], ".yaml")}
					if out[k] == nil {
						out[k] = copies{}
					}
					out[k][id] = p
				}
			}
		}
	}
	return out
}

func sameCopies(a, b copies) bool {
	if len(a) != len(b) {
		return false
	}
	for id, f := range a {
		if g, ok := b[id]; !ok || !bytes.Equal(f.Data, g.Data) {
			return false
		}
	}
	return true
}

// patches checks every patch that the change moves, edits or removes.
func (c *checker) patches() {
	before, after := patchCopies(c.base), patchCopies(c.head)
	var keys []patchKey
	for k := range after {
		keys = append(keys, k)
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		return a.ct+"/"+a.comp+"/"+a.name < b.ct+"/"+b.comp+"/"+b.name
	})
	for _, k := range keys {
		if sameCopies(before[k], after[k]) {
			continue
		}
		if len(after[k]) == 0 && c.foldedInto(k, before[k]) {
			c.integrated[componentKey{k.ct, k.comp}] = true
			c.fold(k, before[k])
			continue
		}
		c.patch(k, before[k], after[k])
	}
}

// componentKey names a component of a cluster type.
type componentKey struct{ ct, comp string }

// foldedInto reports whether the change folds the patch into its
// component's values.yaml: the patch is gone, and values.yaml says what
// the base's values.yaml with the patch merged says (as promote folds it).
func (c *checker) foldedInto(k patchKey, was copies) bool {
	old, now := c.values(c.base, k), c.values(c.head, k)
	if old == nil || now == nil || bytes.Equal(old.Data, now.Data) {
		return false
	}
	ov, err1 := old.Mapping("values.yaml")
	if len(bytes.TrimSpace(old.Data)) == 0 { // a chart's component had none (fleet.Component.ValuesMapping)
		ov, err1 = values.NewMap(values.Pos{File: old.Path}), nil
	}
	nv, err2 := now.Mapping("values.yaml")
	if err1 != nil || err2 != nil {
		return false
	}
	for _, f := range was {
		pv, err := fleet.PatchContent(f)
		if err != nil || !values.Equal(values.Merge(ov, pv), nv) {
			return false
		}
	}
	return true
}

// fold checks a patch folded into values.yaml: the targets that did not
// have it get it, which enters the gates its copies had not entered; the
// copies are gone, so only a commit trailer can approve them.
func (c *checker) fold(k patchKey, was copies) {
	var entered []string
	ct := c.head.ClusterType(k.ct)
	c.head.Config.Root.Walk(func(n *fleet.Node) {
		if n.Gate != fleet.GateManual || ct != nil && !ct.ExistsAt(n) {
			return // no gate, or no target of the cluster type under it
		}
		for id := range was {
			if id == n.ID() || strings.HasPrefix(id, n.ID()+"/") || strings.HasPrefix(n.ID(), id+"/") {
				return
			}
		}
		entered = append(entered, n.ID())
	})
	vf := c.values(c.head, k)
	for _, g := range c.unapproved(entered, nil) {
		c.add(Finding{File: vf.Path, Line: firstDiffLine(c.values(c.base, k).Data, vf.Data), Target: c.name(k.ct, g), Rule: RuleGate,
			Message: fmt.Sprintf("%s of %s is folded into values.yaml, which enters the manual gate %s, with no approval recorded in the change (the folded patch keeps none: add a commit trailer \"Approved-by: Name <email> for %s\")", k.name, k.comp, g, g)})
	}
}

// values is the component's values.yaml in f, or nil.
func (c *checker) values(f *fleet.Fleet, k patchKey) *fleet.File {
	if ct := f.ClusterType(k.ct); ct != nil {
		if comp := ct.Component(k.comp); comp != nil {
			return comp.Values
		}
	}
	return nil
}

// patch checks one patch: where it is now (gaps, gates entered), and what
// changed in place inside gates.
func (c *checker) patch(k patchKey, was, now copies) {
	approvals := c.newApprovals(k, was, now)
	label := fmt.Sprintf("%s of %s", k.name, k.comp)
	if len(now) > 0 {
		var ids []string
		for id := range was {
			ids = append(ids, id)
		}
		r, err := promote.ReviewChange(c.head, k.ct, k.comp, k.name, ids)
		if err != nil {
			c.add(Finding{Rule: RuleGap, Target: k.ct, Message: err.Error()})
			return
		}
		if r.Gap != nil {
			text := hint.Textf("%s is at %s but not at %s, which comes before it in rollout order: promote step by step (%s)",
				label, r.Gap.Latest, r.Gap.Missing, hint.Strata("promote", k.ct, k.comp, k.name))
			c.add(Finding{File: r.Files[len(r.Files)-1], Line: 1, Target: c.name(k.ct, r.Gap.Missing), Rule: RuleGap,
				Message: text.String(), Text: text})
		}
		for _, g := range c.unapproved(r.Entered, approvals) {
			file := r.Files[0]
			for i, id := range r.Found {
				if id == g || strings.HasPrefix(id, g+"/") || strings.HasPrefix(g, id+"/") {
					file = r.Files[i]
					break
				}
			}
			c.add(Finding{File: file, Line: 1, Target: c.name(k.ct, g), Rule: RuleGate,
				Message: fmt.Sprintf("%s enters the manual gate %s with no approval recorded in the change (strata promote --approve records it; or a commit trailer \"Approved-by: Name <email> for %s\")", label, g, g)})
		}
	}
	c.inPlace(k, label, was, now, approvals)
}

// inPlace checks the copies that the change edits or removes other than by
// promotion, inside manual gates.
func (c *checker) inPlace(k patchKey, label string, was, now copies, approvals []promote.Approval) {
	ids := make([]string, 0, len(was))
	for id := range was {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	integrated := len(now) == 0 && c.valuesChanged(k)
	for _, id := range ids {
		node := c.head.Config.Find(strings.Split(id, "/"))
		if node == nil {
			node = c.base.Config.Find(strings.Split(id, "/"))
		}
		old := was[id]
		if f, ok := now[id]; ok {
			if sameContent(old, f) {
				continue
			}
			if gs := c.unapproved(gatesAround(node), approvals); len(gs) > 0 {
				c.add(Finding{File: f.Path, Line: firstDiffLine(old.Data, f.Data), Target: c.name(k.ct, id), Rule: RuleEdited,
					Message: fmt.Sprintf("%s is changed in place inside the manual gate %s, not promoted to it, with no approval recorded in the change", label, strings.Join(gs, ", "))})
			}
			continue
		}
		if integrated || coveredAbove(now, id) || c.head.Config.Find(strings.Split(id, "/")) == nil {
			continue
		}
		if gs := c.unapproved(gatesAround(node), approvals); len(gs) > 0 {
			c.add(Finding{File: old.Path, Line: 1, Target: c.name(k.ct, id), Rule: RuleRemoved,
				Message: fmt.Sprintf("%s is removed inside the manual gate %s (the targets there lose it) with no approval recorded in the change", label, strings.Join(gs, ", "))})
		}
	}
}

// coveredAbove reports whether now has a copy at id, above it or, for
// every target under it, below it (a coalescing undone).
func coveredAbove(now copies, id string) bool {
	for n := range now {
		if n == id || strings.HasPrefix(id, n+"/") {
			return true
		}
	}
	return false
}

// valuesChanged reports whether the component's values.yaml changed.
func (c *checker) valuesChanged(k patchKey) bool {
	a, b := c.values(c.base, k), c.values(c.head, k)
	return a == nil || b == nil || !bytes.Equal(a.Data, b.Data)
}

// sameContent reports whether two copies say the same, metadata aside.
func sameContent(a, b *fleet.File) bool {
	x, err1 := fleet.PatchContent(a)
	y, err2 := fleet.PatchContent(b)
	if err1 != nil || err2 != nil {
		return bytes.Equal(a.Data, b.Data)
	}
	return values.Equal(x, y)
}

// newApprovals are the approvals the copies record now and did not before.
// A malformed record approves nothing and is a finding.
func (c *checker) newApprovals(k patchKey, was, now copies) []promote.Approval {
	var old []promote.Approval
	for _, f := range was {
		as, _ := promote.Approvals(f.Path, f.Data)
		old = append(old, as...)
	}
	var out []promote.Approval
	for id, f := range now {
		as, err := promote.Approvals(f.Path, f.Data)
		if err != nil {
			line := 1
			var ve *values.Error
			if errors.As(err, &ve) {
				line = ve.Pos.Line
			}
			c.add(Finding{File: f.Path, Line: line, Target: c.name(k.ct, id), Rule: RuleGate, Message: "malformed approval, which approves nothing: " + firstLine(err.Error())})
			continue
		}
		for _, a := range as {
			if !slices.ContainsFunc(old, func(b promote.Approval) bool { return b.Node == a.Node && b.By == a.By && b.At.Equal(a.At) }) {
				out = append(out, a)
			}
		}
	}
	return out
}
