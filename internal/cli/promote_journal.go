package cli

import (
	"fmt"

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
