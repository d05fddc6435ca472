package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/promote"
	"github.com/strata-fleet/strata/internal/render"
)

// promoteCommit is what promote --commit did.
type promoteCommit struct {
	Commit string `json:"commit"`
	Branch string `json:"branch"`
	// NewBranch says that --branch created the branch.
	NewBranch bool   `json:"newBranch,omitempty"`
	Message   string `json:"message"`
}

// startCommit checks, before anything changes, that the step's commit
// would take only the step's files (promote.Unrelated), then switches to
// --branch. pending is the promotion being completed, if any.
func (o *promoteOptions) startCommit(ctx context.Context, r *repo, pending *promote.Journal) (git.Repo, error) {
	gr := git.Repo{Git: git.Exec{Dir: r.dir}}
	if _, err := gr.Head(ctx); err != nil {
		return gr, fmt.Errorf("--commit: %s is not in a Git repository with a commit: %w", r.dir, err)
	}
	ct, comp, patch := o.opts.ClusterType, o.opts.Component, o.opts.Patch
	var ops []promote.Op
	if pending != nil {
		ct, comp, patch, ops = pending.Plan.ClusterType, pending.Plan.Component, pending.Plan.Patch, pending.Plan.Ops
	}
	dirty, err := gr.Dirty(ctx, "config", render.OutputDir)
	if err != nil {
		return gr, err
	}
	if other := promote.Unrelated(ct, comp, patch, ops, dirty); len(other) > 0 {
		return gr, fmt.Errorf("--commit: config/ has uncommitted changes that are not %s's own, and the step's commit would take them along or leave rendered/ in it out of step with config/; commit or stash them first (git stash push -- config), nothing was changed:\n  %s",
			patch, strings.Join(other, "\n  "))
	}
	if o.branch != "" {
		created, err := gr.Switch(ctx, o.branch)
		if err != nil {
			return gr, fmt.Errorf("--branch %s: %w", o.branch, err)
		}
		o.newBranch = created
	}
	return gr, nil
}

// commitStep commits the step of plan: the component's files and
// rendered/, with the action's message.
func (o *promoteOptions) commitStep(ctx context.Context, gr git.Repo, step *action.Step, p *promote.Plan) (*promoteCommit, error) {
	done, err := step.Commit(ctx, p, action.Commit{Git: gr, Paths: []string{"config/" + p.ClusterType + "/" + p.Component, render.OutputDir}})
	if err != nil {
		return nil, fmt.Errorf("config/ is promoted and rendered but not committed (commit it yourself): %w", err)
	}
	branch, err := gr.Branch(ctx)
	if err != nil {
		branch = "" // detached: the commit is HEAD's
	}
	return &promoteCommit{Commit: done.Commit, Branch: branch, NewBranch: o.newBranch, Message: done.Message}, nil
}

// printCommit says what --commit did and what comes next.
func (o *promoteOptions) printCommit(c *promoteCommit) {
	subject, _, _ := strings.Cut(c.Message, "\n")
	on := "on " + c.Branch
	switch {
	case c.Branch == "":
		on = "at a detached HEAD"
	case c.NewBranch:
		on = "on the new branch " + c.Branch
	}
	fmt.Fprintf(o.stdout, "committed %s %s: %s\n", short(c.Commit), on, subject)
	if o.branch != "" {
		fmt.Fprintf(o.stdout, "next: push it and open a pull request (%s push -u origin %s)\n", o.gitCommand(), c.Branch)
	}
}
