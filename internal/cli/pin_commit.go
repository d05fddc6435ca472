package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/pin"
)

// checkCommit checks, before the gate and before anything changes, that
// the pin's commit would take only the pin's files: config/ must have no
// uncommitted change, or the commit would take it along or leave rendered/
// in it out of step with config/.
func (o *pinOptions) checkCommit(ctx context.Context, r *repo) (git.Repo, error) {
	gr := git.Repo{Git: git.Exec{Dir: r.dir}}
	if _, err := gr.Head(ctx); err != nil {
		return gr, fmt.Errorf("--commit: %s is not in a Git repository with a commit: %w", r.dir, err)
	}
	dirty, err := gr.Dirty(ctx, "config")
	if err != nil {
		return gr, err
	}
	if len(dirty) > 0 {
		return gr, fmt.Errorf("--commit: config/ has uncommitted changes, which the pin's commit would take along or leave rendered/ in it out of step with config/; commit or stash them first (git stash push -- config), nothing was changed:\n  %s",
			strings.Join(dirty, "\n  "))
	}
	return gr, nil
}

// startCommit switches to --branch, once the pin passed its checks.
func (o *pinOptions) startCommit(ctx context.Context, gr git.Repo) error {
	if o.branch != "" {
		if _, err := gr.Switch(ctx, o.branch); err != nil {
			return fmt.Errorf("--branch %s: %w", o.branch, err)
		}
	}
	return nil
}

// commitPin commits config.yaml and the rendered tree (outRoot) with
// pinMessage.
func (o *pinOptions) commitPin(ctx context.Context, gr git.Repo, p *pin.Plan, outRoot string) (*promoteCommit, error) {
	msg := pinMessage(p, o.approver)
	commit, err := gr.Commit(ctx, msg, fleet.ConfigPath, outRoot)
	if err != nil {
		return nil, fmt.Errorf("the pin is set and rendered but not committed (commit it yourself): %w", err)
	}
	branch, err := gr.Branch(ctx)
	if err != nil {
		branch = "" // detached: the commit is HEAD's
	}
	return &promoteCommit{Commit: commit, Branch: branch, NewBranch: false, Message: msg}, nil
}

// pinSubject is the subject of the pin's commit, as the next steps print
// it too.
func pinSubject(p *pin.Plan) string {
	s := fmt.Sprintf("Pin %s to %s", p.Node, short(p.Revision))
	if p.ClusterType != "" {
		s += " (" + p.ClusterType + ")"
	}
	return s
}

// pinMessage is the commit message of a pin: the subject, the changes
// summarised, and an Approved-by trailer per gate passed.
func pinMessage(p *pin.Plan, approver string) string {
	var b strings.Builder
	b.WriteString(pinSubject(p))
	b.WriteString("\n\n")
	for _, g := range groupChanges(p.Changes) {
		for _, l := range g.lines(shortList) {
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

// changeGroup is the targets of one cluster type whose revision changes
// from one pin to another.
type changeGroup struct {
	clusterType, from, to string
	targets               []string
}

// groupChanges groups changes by cluster type and revisions, in the order
// of their first target (rollout order).
func groupChanges(changes []pin.Change) []*changeGroup {
	var g group[[3]string]
	for _, c := range changes {
		g.add([3]string{c.ClusterType, c.From, c.To}, c.Target)
	}
	out := make([]*changeGroup, len(g.keys))
	for i, k := range g.keys {
		out[i] = &changeGroup{clusterType: k[0], from: k[1], to: k[2], targets: g.names[k]}
	}
	return out
}

// lines is the group as a line per target when it has few, else as one
// line with the targets summarised (list: nameList or shortList).
func (g *changeGroup) lines(list func([]string) string) []string {
	if len(g.targets) <= shownNames {
		out := make([]string, len(g.targets))
		for i, t := range g.targets {
			out[i] = fmt.Sprintf("%s %s: %s -> %s", g.clusterType, t, short(g.from), short(g.to))
		}
		return out
	}
	return []string{fmt.Sprintf("%s, %d targets: %s -> %s (%s)", g.clusterType, len(g.targets), short(g.from), short(g.to), list(g.targets))}
}
