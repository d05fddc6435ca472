package pin

import (
	"fmt"
	"strings"

	gitpkg "github.com/strata-fleet/strata/internal/git"
)

// Shown is how many targets a line of grouped changes lists before "and
// N more" (the CLI cuts its lists the same way).
const Shown = 3

// Subject is the subject of a pin's commit, as the next steps print it
// too.
func Subject(p *Plan) string {
	s := fmt.Sprintf("Pin %s to %s", What(p), gitpkg.Short(p.Revision))
	if p.ClusterType != "" {
		s += " (" + p.ClusterType + ")"
	}
	return s
}

// What names what a pin moves: the node, or the node's named revision.
func What(p *Plan) string {
	if p.Name != "" {
		return p.Node + " " + p.Name
	}
	return p.Node
}

// Message is the commit message of a pin: the subject, the changes
// grouped (Groups, their targets cut by ShortList), and an Approved-by
// trailer per gate passed, naming approver.
func Message(p *Plan, approver string) string {
	var b strings.Builder
	b.WriteString(Subject(p))
	b.WriteString("\n\n")
	for _, g := range Groups(p.Changes) {
		for _, l := range g.Lines(ShortList) {
			fmt.Fprintf(&b, "%s\n", l)
		}
	}
	if len(p.Gates) > 0 {
		b.WriteString("\n")
		for _, g := range p.Gates {
			fmt.Fprintf(&b, "Approved-by: %s for %s\n", approver, g)
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// ShortList is names cut to the first Shown and how many more, for text
// read elsewhere than on a terminal (a commit message).
func ShortList(names []string) string {
	if len(names) <= Shown+1 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:Shown], ", "), len(names)-Shown)
}

// Group is the targets of one cluster type whose revision changes from
// one pin to another.
type Group struct {
	ClusterType, From, To string
	Targets               []string
}

// Groups groups changes by cluster type and revisions, in the order of
// their first target (rollout order).
func Groups(changes []Change) []*Group {
	var out []*Group
	index := map[[3]string]*Group{}
	for _, c := range changes {
		k := [3]string{c.ClusterType, c.From, c.To}
		g := index[k]
		if g == nil {
			g = &Group{ClusterType: c.ClusterType, From: c.From, To: c.To}
			index[k] = g
			out = append(out, g)
		}
		g.Targets = append(g.Targets, c.Target)
	}
	return out
}

// Lines is the group as a line per target when it has few (Shown or
// fewer), else as one line with the targets summarised by list.
func (g *Group) Lines(list func([]string) string) []string {
	if len(g.Targets) <= Shown {
		out := make([]string, len(g.Targets))
		for i, t := range g.Targets {
			out[i] = fmt.Sprintf("%s %s: %s -> %s", g.ClusterType, t, gitpkg.Short(g.From), gitpkg.Short(g.To))
		}
		return out
	}
	return []string{fmt.Sprintf("%s, %d targets: %s -> %s (%s)", g.ClusterType, len(g.Targets), gitpkg.Short(g.From), gitpkg.Short(g.To), list(g.Targets))}
}
