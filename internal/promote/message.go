package promote

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Rendered is what a promotion step did to the rendered output: the
// targets (<cluster type>/<node>) whose files changed, of how many.
type Rendered struct {
	Changed []string
	Total   int
}

// Subject says what a promotion moved where: "Promote patch-001 of
// management-cluster/cert-manager to stage/stage-sector-1, coalesce it at
// stage, fold it into config/.../values.yaml".
func Subject(p *Plan) string {
	what := fmt.Sprintf("%s of %s/%s", p.Patch, p.ClusterType, p.Component)
	var parts []string
	if p.Target != "" {
		parts = append(parts, "Promote "+what+" to "+p.Target+waveSubject(p.Wave))
	}
	for _, c := range p.Coalesced {
		if len(parts) == 0 {
			parts = append(parts, "Coalesce "+what+" at "+c.Node)
		} else {
			parts = append(parts, "coalesce it at "+c.Node)
		}
	}
	if p.Integrated != "" {
		if len(parts) == 0 {
			parts = append(parts, "Fold "+what+" into "+p.Integrated)
		} else {
			parts = append(parts, "fold it into "+p.Integrated)
		}
	}
	return strings.Join(parts, ", ")
}

// CommitMessage is the message of the commit of one promotion step, the
// same for strata promote --commit and strata rollout:
//
//	<subject>: N of M targets' rendered output changed
//
//	<the patch's description>
//
//	Owner: <owner>
//	Ticket: <ticket>
//	Recorded approval: <gate> by <who> at <when>   (a fold: earlier gates)
//
//	Rendered output changed at:
//	  <target>
//
//	Approved-by: <who> for <gate>   (each gate this step entered)
//	<trailers>
//
// subject is Subject(p) for a plan; p may be nil (a rollout's first step,
// the patch's first copy, has no plan). The Approved-by trailers are
// those package verify reads.
func CommitMessage(subject string, p *Plan, r Rendered, trailers ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s changed\n\n", subject, countTargets(len(r.Changed), r.Total))
	if p != nil && p.Meta != nil {
		m := p.Meta
		if d := strings.TrimSpace(m.Description); d != "" {
			b.WriteString(d + "\n\n")
		}
		var lines []string
		if m.Owner != "" {
			lines = append(lines, "Owner: "+m.Owner)
		}
		if m.Ticket != "" {
			lines = append(lines, "Ticket: "+m.Ticket)
		}
		if p.Integrated != "" {
			for _, a := range m.Approvals {
				if slices.ContainsFunc(p.Approvals, func(b Approval) bool { return sameApproval(a, b) }) {
					continue // this step's: a trailer below
				}
				lines = append(lines, fmt.Sprintf("Recorded approval: %s by %s at %s", a.Node, a.By, a.At.UTC().Format(time.RFC3339)))
			}
		}
		if len(lines) > 0 {
			b.WriteString(strings.Join(lines, "\n") + "\n\n")
		}
	}
	if len(r.Changed) == 0 {
		b.WriteString("No target's rendered output changed.\n")
	} else {
		b.WriteString("Rendered output changed at:\n")
		for _, t := range r.Changed {
			fmt.Fprintf(&b, "  %s\n", t)
		}
	}
	var tr []string
	if p != nil {
		for _, a := range p.Approvals {
			tr = append(tr, fmt.Sprintf("Approved-by: %s for %s", a.By, a.Node))
		}
	}
	if tr = append(tr, trailers...); len(tr) > 0 {
		b.WriteString("\n" + strings.Join(tr, "\n") + "\n")
	}
	return b.String()
}

func countTargets(n, total int) string {
	s := "targets'"
	if total == 1 {
		s = "target's"
	}
	return fmt.Sprintf("%d of %d %s rendered output", n, total, s)
}

// waveSubject is what a subject says of a wave after its first node:
// ", production/b (wave 2 of 4 of production)"; up to three nodes are
// named, then how many more.
func waveSubject(w *Wave) string {
	if w == nil {
		return ""
	}
	s := ""
	if len(w.Nodes) > 3 {
		s = fmt.Sprintf(" and %d more nodes", len(w.Nodes)-1)
	} else if len(w.Nodes) > 1 {
		s = ", " + strings.Join(w.Nodes[1:], ", ")
	}
	return s + fmt.Sprintf(" (wave %d of %d of %s)", w.Number, w.Of, w.Group)
}
