package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/diff"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/values"
)

// runLive is diff --live: rendered/ compared with what the fleet's Argo
// CDs hold.
func (o *diffOptions) runLive(ctx context.Context) error {
	r, rr, err := o.openRendered()
	if err != nil {
		return err
	}
	defer r.Close()
	rep, err := o.live.load(ctx, r.dir, rr, true)
	if err != nil {
		return err
	}
	var match func(live.Cell) bool
	if o.target != "" {
		match = func(c live.Cell) bool {
			return fleet.TargetPattern(o.target).Matches(c.ClusterType, strings.TrimPrefix(c.Target, c.ClusterType+"/"))
		}
		if !slices.ContainsFunc(rep.Cells, match) {
			return diff.NoMatch(o.target, cellTargets(rep.Cells), " that a cluster of the inventory runs")
		}
	}
	d := live.Compare(r.fsys, rr.Fleet, rep, match)
	switch {
	case o.output.data():
		if err := o.output.write(o.stdout, d); err != nil {
			return err
		}
	case o.output == "markdown":
		printDriftMarkdown(o.stdout, d, o.strata)
	default:
		printDrift(o.stdout, d, useColor(o.stdout))
	}
	if err := noneRead(rep); err != nil {
		return err // nothing was compared: no finding either way
	}
	if o.exitCode && d.Differs() {
		return &exitError{code: exitFindings}
	}
	return nil
}

// cellTargets names the targets of cells, with their cluster type and as
// the matrix names them.
func cellTargets(cells []live.Cell) []string {
	var names []string
	for _, c := range cells {
		path := strings.TrimPrefix(c.Target, c.ClusterType+"/")
		names = append(names, path, c.ClusterType+"/"+path)
	}
	return names
}

// printDrift writes d as diff does, per cell and object what Argo CD says,
// the diff and the resources out of sync or unhealthy, then the trailer
// and the summary; what comes from the clusters escaped.
func printDrift(w io.Writer, d *live.Drift, color bool) {
	for _, c := range d.Cells {
		fmt.Fprintln(w, paint(fmt.Sprintf("=== %s %s (%s)", c.Target, cmp.Or(c.Component, "-"), c.State), "\x1b[1;33m", color))
		for _, o := range c.Objects {
			fmt.Fprintln(w, values.Printable(objectLine(o)))
			for _, line := range strings.SplitAfter(o.Diff, "\n") {
				if line != "" {
					fmt.Fprintln(w, paint(values.Printable(strings.TrimSuffix(line, "\n")), diffColors[diff.LineKind(line)], color))
				}
			}
			for _, line := range resourceLines(o) {
				fmt.Fprintln(w, values.Printable(line))
			}
		}
		fmt.Fprintln(w)
	}
	for _, line := range driftTrailer(d) {
		fmt.Fprintln(w, values.Printable(line))
	}
	fmt.Fprintln(w, d.Summary())
}

// objectLine is an object's header: what it is, where, and what Argo CD
// says of it.
func objectLine(o live.ObjectDrift) string {
	s := fmt.Sprintf("%s %s on %s: ", o.Kind, o.Name, o.ArgoCD)
	if o.Missing {
		return s + "missing (" + o.Reason + ")"
	}
	s += strings.Join(nonEmpty(o.Sync, o.Health, o.HealthMessage), ", ")
	if o.Error != "" {
		s += "; not compared: " + o.Error
	}
	return s
}

// resourceLines are the resources Argo CD reports out of sync or
// unhealthy, and an ApplicationSet's Applications that are.
func resourceLines(o live.ObjectDrift) []string {
	out := resources("", o.Resources)
	for _, g := range o.Generated {
		line := fmt.Sprintf("generated Application %s: %s", g.Name, strings.Join(nonEmpty(g.Sync, g.Health, g.HealthMessage), ", "))
		out = append(out, line)
		out = append(out, resources("  ", g.Resources)...)
	}
	return out
}

func resources(indent string, rs []live.Resource) []string {
	var out []string
	for _, r := range rs {
		kind := r.Kind
		if r.Group != "" {
			kind = r.Group + "/" + r.Kind
		}
		name := r.Name
		if r.Namespace != "" {
			name = r.Namespace + "/" + r.Name
		}
		line := fmt.Sprintf("%sresource %s %s: %s", indent, kind, name, strings.Join(nonEmpty(r.Status, r.Health), ", "))
		if r.Message != "" {
			line += " (" + r.Message + ")"
		}
		out = append(out, line)
	}
	return out
}

func nonEmpty(s ...string) []string {
	var out []string
	for _, x := range s {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}

// driftTrailer names the Argo CDs that could not be read, the live objects
// nothing rendered accounts for and the rendered ones Argo CD lacks.
func driftTrailer(d *live.Drift) []string {
	var out []string
	for _, in := range d.ArgoCDs {
		if in.Error != "" {
			out = append(out, "unreachable: "+in.Cluster+": "+in.Error)
		}
	}
	for _, u := range d.Unmapped {
		what := u.Kind + " " + u.Name
		if u.Owner != "" {
			what += " (made by ApplicationSet " + u.Owner + ")"
		}
		out = append(out, "unmapped: "+u.ArgoCD+": "+what+" matches nothing rendered")
	}
	for _, m := range d.Missing {
		out = append(out, "missing: "+m.ArgoCD+": "+m.Kind+" "+m.Name+" ("+m.File+")")
	}
	return out
}

// printDriftMarkdown writes d as a pull request comment: the summary, a
// table of the objects that differ, each one's diff within the budget.
func printDriftMarkdown(w io.Writer, d *live.Drift, strata func(args ...string) string) {
	var b strings.Builder
	fmt.Fprintf(&b, "### strata diff --live: %s\n\n", d.Summary())
	if trailer := driftTrailer(d); len(trailer) > 0 {
		for _, line := range trailer {
			fmt.Fprintf(&b, "- %s\n", markdownText(line))
		}
		b.WriteString("\n")
	}
	if len(d.Cells) > 0 {
		b.WriteString("| target | component | object | Argo CD says |\n|---|---|---|---|\n")
		for _, c := range d.Cells {
			for _, o := range c.Objects {
				fmt.Fprintf(&b, "| `%s` | %s | %s `%s` on %s | %s |\n", c.Target, cmp.Or(c.Component, "-"), o.Kind, o.Name, o.ArgoCD,
					markdownText(strings.TrimPrefix(objectLine(o), fmt.Sprintf("%s %s on %s: ", o.Kind, o.Name, o.ArgoCD))))
			}
		}
		b.WriteString("\n")
	}
	for _, c := range d.Cells {
		for _, o := range c.Objects {
			if o.Diff == "" && len(o.Resources)+len(o.Generated) == 0 {
				continue
			}
			text := o.Diff
			if lines := resourceLines(o); len(lines) > 0 {
				text += "# Argo CD reports:\n# " + strings.Join(lines, "\n# ") + "\n"
			}
			var section strings.Builder
			writeMarkdownFile(&section, diff.ResourceChange{Name: c.Target + " " + o.Name, Kind: o.Kind, Status: string(o.State), Diff: text})
			if b.Len()+section.Len() > markdownBudget {
				fmt.Fprintf(&b, "… and more, past what a comment holds: run `%s` to see it all.\n", strata("diff", "--live"))
				io.WriteString(w, b.String())
				return
			}
			b.WriteString(section.String())
		}
	}
	io.WriteString(w, b.String())
}

// markdownText is text from the clusters made safe in a Markdown table.
func markdownText(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;", ">", "&gt;").Replace(values.Printable(s))
}
