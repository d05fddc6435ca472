package cli

import (
	"fmt"
	"io/fs"

	"github.com/strata-fleet/strata/internal/promote"
)

// unfinished deals with the promotion recorded in the journal before this
// run's: a dry run shows it (and is done), a promotion of another patch is
// refused, anything else completes its file operations first (the
// re-render follows in run). Completing the interrupted step is then this
// run's promotion: going on would take a second step (and pass gates) the
// user did not see.
func (o *promoteOptions) unfinished(ops promote.FileOps, rep *promoteReport) (done bool, err error) {
	pending, err := promote.Pending(ops)
	if err != nil || pending == nil {
		return false, err
	}
	asked := &promote.Plan{ClusterType: o.opts.ClusterType, Component: o.opts.Component, Patch: o.opts.Patch}
	if asked.ClusterType != "" && !pending.Is(asked.ClusterType, asked.Component, asked.Patch) {
		return false, &promote.PendingError{Journal: pending, Asked: asked}
	}
	if o.dryRun {
		rep.Pending = pending
		if o.output.data() {
			return true, o.output.write(o.stdout, rep)
		}
		fmt.Fprintf(o.stdout, "unfinished: %s\n%s finishes it:\n", pending.Describe(), o.strata("promote", "--resume"))
		o.print(pending.Plan)
		return true, nil
	}
	j, err := promote.Resume(ops)
	if err != nil {
		return false, err
	}
	rep.Resumed = j.Plan
	if !o.output.data() {
		fmt.Fprintf(o.stdout, "completed the interrupted promotion of %s (%s)\n", j.Plan.Patch, j.Plan.Component)
		if asked.ClusterType != "" {
			fmt.Fprintln(o.stdout, "nothing more was promoted: run the command again to promote further")
		}
	}
	o.opts.ClusterType = ""
	return false, nil
}

// abandonJournal drops the record of an unfinished promotion.
func (o *promoteOptions) abandonJournal(ops promote.FileOps) error {
	j, err := promote.Abandon(ops)
	if err != nil {
		return err
	}
	switch {
	case o.output.data():
		return o.output.write(o.stdout, struct {
			Abandoned *promote.Journal `json:"abandoned"`
		}{j})
	case j == nil:
		fmt.Fprintln(o.stdout, "no unfinished promotion to abandon")
	default:
		fmt.Fprintf(o.stdout, "abandoned: %s\nnothing was changed: compare config/ with git (git status config/) and render\n", j.Describe())
	}
	return nil
}

// warnUnfinished says, on stderr, when the repository has a promotion that
// is not finished (with the command that finishes it) or a journal
// committed where strata no longer reads one. Every command that reads the
// fleet calls it (openRepo), so an unfinished promotion is never silent.
func (g *globals) warnUnfinished(r *repo) {
	g.warnCommittedJournal(r)
	ops, err := promote.NewDirOps(r.dir)
	if err != nil {
		return
	}
	j, err := promote.Pending(ops)
	switch {
	case err != nil:
		fmt.Fprintf(g.stderr, "warning: %v\n", err)
	case j != nil:
		fmt.Fprintf(g.stderr, "warning: %s: run %s to finish it\n", j.Describe(), g.strata("promote", "--resume"))
	}
}

// finishRendered ends a promotion whose only step left was re-rendering,
// once a full render has brought rendered/ up to date, and says so.
func (g *globals) finishRendered(r *repo) error {
	ops, err := promote.NewDirOps(r.dir)
	if err != nil {
		return err
	}
	j, err := promote.Pending(ops)
	if err != nil || j == nil || j.Stage != promote.StageRender {
		return nil // warnUnfinished has said it
	}
	if err := promote.Finish(ops); err != nil {
		return err
	}
	fmt.Fprintf(g.stderr, "finished the promotion of %s (%s): rendered/ reflects it\n", j.Plan.Patch, j.Plan.Component)
	return nil
}

// warnCommittedJournal says that a journal inside the repository is ignored.
func (g *globals) warnCommittedJournal(r *repo) {
	if _, err := fs.Stat(r.fsys, promote.CommittedJournal); err == nil {
		fmt.Fprintf(g.stderr, "warning: %s is ignored: strata keeps an unfinished promotion's journal outside the repository and never replays one from it; remove it (git rm %s)\n",
			promote.CommittedJournal, promote.CommittedJournal)
	}
}
