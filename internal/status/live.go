package status

import (
	"fmt"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/values"
)

// Live is the live state shown with the matrix (status --live): what is
// not a cell of it.
type Live struct {
	// ArgoCDs are the Argo CDs read; Error says why one could not be.
	ArgoCDs []*live.Instance `json:"argocds"`
	// Roots are the clusters' root Applications.
	Roots []live.Root `json:"roots"`
	// Other are the cells of objects that no single component makes.
	Other []live.Cell `json:"other,omitempty"`
	// Unmapped are live objects nothing rendered accounts for; Missing
	// rendered objects with no live counterpart.
	Unmapped []live.Unmapped `json:"unmapped,omitempty"`
	Missing  []live.Expected `json:"missing,omitempty"`
	// Counts is how many cells are in each state.
	Counts map[live.State]int `json:"counts"`
}

// WithLive returns a copy of s with the live state r joined to the matrix:
// every cell that clusters run gets its live.Cell, Live the rest. s is not
// modified (the web UI shares it between requests).
func (s *Status) WithLive(r *live.Report) *Status {
	cp := *s
	cp.ClusterTypes = append([]ClusterType(nil), s.ClusterTypes...)
	for i := range cp.ClusterTypes {
		ct := &cp.ClusterTypes[i]
		ct.Targets = append([]Target(nil), ct.Targets...)
		for j := range ct.Targets {
			ct.Targets[j].Cells = append([]Cell(nil), ct.Targets[j].Cells...)
		}
	}
	cp.addLive(r)
	return &cp
}

func (s *Status) addLive(r *live.Report) {
	s.Live = &Live{ArgoCDs: r.ArgoCDs, Roots: r.Roots, Unmapped: r.Unmapped, Missing: r.Missing, Counts: map[live.State]int{}}
	type key struct{ ct, target, component string }
	cells := make(map[key]*live.Cell, len(r.Cells))
	for i := range r.Cells {
		c := &r.Cells[i]
		s.Live.Counts[c.State]++
		if c.Component == "" {
			s.Live.Other = append(s.Live.Other, *c)
			continue
		}
		cells[key{c.ClusterType, c.Target, c.Component}] = c
	}
	for i := range s.ClusterTypes {
		ct := &s.ClusterTypes[i]
		for j := range ct.Targets {
			t := &ct.Targets[j]
			for k := range t.Cells {
				t.Cells[k].Live = cells[key{ct.Name, t.Name, t.Cells[k].Component}]
			}
		}
	}
}

// StateWord is a live state as the table shows it, in one word.
func StateWord(st live.State) string {
	switch st {
	case live.NotCommitted:
		return "uncommitted"
	case live.OutOfSync:
		return "drift"
	}
	return string(st)
}

// stateStyle is the colour of a live state.
func stateStyle(st live.State) string {
	switch st {
	case live.Healthy:
		return styleGood
	case live.Synced, live.Waiting, live.NotCommitted:
		return stylePatch
	case live.Unknown, live.Unreachable:
		return styleGate
	}
	return styleBad
}

// liveLines are the lines under a cluster type's matrix that explain its
// cells that are not healthy, one per object.
func liveLines(ct *ClusterType) []string {
	var out []string
	for _, t := range ct.Targets {
		for _, c := range t.Cells {
			if c.Live != nil && c.Live.State != live.Healthy {
				out = append(out, cellLines(*c.Live)...)
			}
		}
	}
	return out
}

// cellLines explain the objects of a cell that are not healthy.
func cellLines(c live.Cell) []string {
	var out []string
	for _, a := range c.Apps {
		if a.State == live.Healthy || a.State == live.Unreachable {
			continue // an unreachable Argo CD is explained once
		}
		line := fmt.Sprintf("%s %s: %s %s on %s: %s", c.Target, orDash(c.Component), a.Kind, a.Name, a.Cluster, StateWord(a.State))
		if a.Reason != "" {
			line += " (" + a.Reason + ")"
		}
		out = append(out, values.Printable(line))
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// writeLive writes what the live state says beyond the matrix: the Argo
// CDs that could not be read, one line per reason (the full error of
// each is in -o json), the cells of no component, the unmapped and
// missing objects.
//
// Names and messages come from the clusters: they are printed escaped
// (values.Printable), as the matrix's text is.
func (tw *tableWriter) writeLive(l *Live) {
	tw.line("")
	var reached []string
	for _, in := range l.ArgoCDs {
		if in.Error == "" {
			reached = append(reached, fmt.Sprintf("%s (%d Applications)", in.Cluster, len(in.Applications)))
		}
	}
	tw.line(truncate("Argo CD: "+orNone(reached), tw.opts.Width, false))
	for _, u := range live.GroupUnreached(l.ArgoCDs) {
		tw.line(tw.style(truncate(values.Printable("unreachable: "+u.Names()+": "+u.Reason), tw.opts.Width, false), styleBad))
	}
	for _, line := range revisionLines(l.Roots) {
		tw.line(truncate(line, tw.opts.Width, false))
	}
	for _, c := range l.Other {
		for _, line := range cellLines(c) {
			tw.line(tw.style(truncate(line, tw.opts.Width, false), stateStyle(c.State)))
		}
	}
	for _, u := range l.Unmapped {
		what := u.Kind + " " + u.Name
		if u.Owner != "" {
			what += " (made by ApplicationSet " + u.Owner + ")"
		}
		tw.line(truncate(values.Printable("unmapped: "+u.ArgoCD+": "+what+" matches nothing rendered"), tw.opts.Width, false))
	}
	for _, m := range l.Missing {
		tw.line(tw.style(truncate("missing: "+m.ArgoCD+": "+m.Kind+" "+m.Name+" ("+m.File+")", tw.opts.Width, false), styleBad))
	}
}

// revisionLines name, per cluster, the revisions its target runs (only
// where config.yaml names revisions): "revisions of ops-01: root
// ops-stable (deployed 1a2b3c4d5e6f), charts 826fa76d08fc, components
// stable".
func revisionLines(roots []live.Root) []string {
	var out []string
	for _, r := range roots {
		if len(r.Revisions) > 0 {
			out = append(out, values.Printable("revisions of "+r.Cluster+": "+RevisionsText(r.Revisions, r.Revision)))
		}
	}
	return out
}

// RevisionsText names revisions as status shows them, commit hashes
// shortened as in the matrix: "root main, charts 826fa76d08fc"; deployed,
// when not "", is what the root deployed, after the root's.
func RevisionsText(revs []fleet.RevisionByName, deployed string) string {
	var out []string
	for _, rv := range revs {
		text := rv.Name + " " + shortRevision(rv.Revision)
		if rv.Name == fleet.RootRevisionName && deployed != "" {
			text += " (deployed " + shortRevision(deployed) + ")"
		}
		out = append(out, text)
	}
	return strings.Join(out, ", ")
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none reachable"
	}
	return strings.Join(s, ", ")
}

// LiveView is the live state arranged for the HTML templates.
type LiveView struct {
	Reached     []string
	Unreachable []string
	// Problems explain the objects that are not healthy, one per line.
	Problems []string
	Unmapped []string
	Missing  []string
	Counts   string
	// Revisions name the revisions of each cluster's target, one line per
	// cluster, where config.yaml names revisions.
	Revisions []string
}

func newLiveView(s *Status) *LiveView {
	l := s.Live
	if l == nil {
		return nil
	}
	v := &LiveView{}
	for _, in := range l.ArgoCDs {
		if in.Error == "" {
			v.Reached = append(v.Reached, fmt.Sprintf("%s (%d Applications)", in.Cluster, len(in.Applications)))
		}
	}
	for _, u := range live.GroupUnreached(l.ArgoCDs) {
		v.Unreachable = append(v.Unreachable, u.Names()+": "+u.Reason)
	}
	v.Revisions = revisionLines(l.Roots)
	for i := range s.ClusterTypes {
		v.Problems = append(v.Problems, liveLines(&s.ClusterTypes[i])...)
	}
	for _, c := range l.Other {
		v.Problems = append(v.Problems, cellLines(c)...)
	}
	for _, u := range l.Unmapped {
		v.Unmapped = append(v.Unmapped, u.ArgoCD+": "+u.Kind+" "+u.Name)
	}
	for _, m := range l.Missing {
		v.Missing = append(v.Missing, m.ArgoCD+": "+m.Kind+" "+m.Name+" ("+m.File+")")
	}
	var counts []string
	for _, st := range []live.State{live.Healthy, live.Synced, live.NotCommitted, live.Waiting, live.Unknown, live.Unreachable, live.Missing, live.OutOfSync, live.Degraded, live.Failed} {
		if n := l.Counts[st]; n > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", n, StateWord(st)))
		}
	}
	v.Counts = strings.Join(counts, ", ")
	return v
}

// liveTitle is a cell's tooltip: each object's state and reason.
func liveTitle(c *live.Cell) string {
	var lines []string
	for _, a := range c.Apps {
		line := fmt.Sprintf("%s %s on %s: %s", a.Kind, a.Name, a.Cluster, StateWord(a.State))
		if a.Reason != "" {
			line += " (" + a.Reason + ")"
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}
