package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/promote"
)

type promoteOptions struct {
	*globals
	opts     promote.Options
	dryRun   bool
	noRender bool
	resume   bool
	abandon  bool
	output   outputFormat
	// commit and branch: --commit, --branch.
	commit bool
	branch string
	// allowUncommitted takes a step on top of the last one promote took
	// and nobody committed (action.Promote).
	allowUncommitted bool
}

func newPromoteCmd(g *globals) *cobra.Command {
	o := &promoteOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "promote CLUSTER_TYPE COMPONENT PATCH",
		Short: "Promote a patch to the next location of the sequence",
		Long: `Promote copies a patch to the next node of the sequence, coalesces its copies
and folds it into values.yaml when every first-level node has it, then
re-renders; entering a manual gate needs --approve, and an interrupted
promotion is completed by the next run (or --resume). docs/promote.md says it in
full.`,
		Example: `  # Promote patch-001 of cert-manager one step
  strata promote management-cluster cert-manager patch-001

  # See the plan without changing anything
  strata promote management-cluster cert-manager patch-001 --dry-run

  # Enter production, a manual gate, promoting region by region; the
  # approval (git's user.name <user.email>) is recorded in the patch
  strata promote management-cluster cert-manager patch-001 --approve --level regions

  # Approve on someone's behalf
  strata promote management-cluster cert-manager patch-001 --approve --approver "Jane Doe <jane@example.com>"

  # Commit the step (config/ and rendered/, its message saying what moved
  # where and how many targets change) on a new branch, for a pull request
  strata promote management-cluster cert-manager patch-001 --branch promote/cert-manager-patch-001-stage

  # Complete a promotion that was interrupted (its re-render included)
  strata promote --resume

  # Drop the record of an interrupted promotion that cannot be completed
  strata promote --abandon`,
		Args: func(cmd *cobra.Command, args []string) error {
			if (o.resume || o.abandon) && len(args) == 0 {
				return nil
			}
			return cobra.ExactArgs(3)(cmd, args)
		},
		ValidArgsFunction: g.completion(3, completePatch),
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 3 {
				o.opts.ClusterType, o.opts.Component, o.opts.Patch = args[0], args[1], args[2]
			}
			o.commit = o.commit || o.branch != ""
			switch {
			case o.commit && o.dryRun:
				return usageErrorf("--commit and --branch make a commit; --dry-run changes nothing: give one or the other")
			case o.commit && o.noRender:
				return usageErrorf("--commit and --branch commit rendered/ with config/; --no-render would commit config/ out of step with it")
			case o.commit && o.abandon:
				return usageErrorf("--abandon commits nothing: drop --commit and --branch")
			}
			return o.run()
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.opts.Level, "level", "", "the dimension promotions land at (default: config promotion.level, else the second dimension)")
	f.BoolVar(&o.opts.Approve, "approve", false, "pass the manual gates this promotion enters, recording who approved in the new patch copy's metadata")
	f.StringVar(&o.opts.Approver, "approver", "", "who approves, `\"Name <email>\"` (default: git's user.name and user.email)")
	f.BoolVar(&o.dryRun, "dry-run", false, "print the plan and change nothing")
	f.BoolVar(&o.noRender, "no-render", false, "do not re-render rendered/ afterwards")
	f.BoolVar(&o.resume, "resume", false, "complete an interrupted promotion, re-rendering included (with --dry-run: show it)")
	f.BoolVar(&o.abandon, "abandon", false, "drop the record of an unfinished promotion without completing it (compare config/ with git afterwards)")
	f.BoolVar(&o.allowUncommitted, "allow-uncommitted", false, "take the next step even though the previous one promote took is not committed yet")
	f.BoolVar(&o.commit, "commit", false, "commit the step: the component's files and rendered/, nothing else, with a message saying what moved where, how many targets change, the patch's metadata and approvals")
	f.StringVar(&o.branch, "branch", "", "commit the step on branch `NAME` (created at HEAD when it does not exist), for a pull request per step; implies --commit")
	addOutputFlag(f, &o.output, "")
	return cmd
}

type promoteReport struct {
	// Pending is the unfinished promotion a dry run shows.
	Pending  *promote.Journal `json:"pending,omitempty"`
	Resumed  *promote.Plan    `json:"resumed,omitempty"`
	Plan     *promote.Plan    `json:"plan,omitempty"`
	DryRun   bool             `json:"dryRun"`
	Rendered *renderReport    `json:"rendered,omitempty"`
	Commit   *promoteCommit   `json:"commit,omitempty"`
}

func (o *promoteOptions) run() error {
	// An unfinished promotion is this command's to deal with (Promote).
	r, err := o.open(action.Options{Lock: exclusiveIf(!o.dryRun), Journal: action.OwnJournal})
	if err != nil {
		return err
	}
	defer r.Close()
	if o.abandon {
		return o.abandonJournal(r)
	}
	if o.opts.ClusterType != "" && o.opts.Approve && o.opts.Approver == "" {
		o.opts.Approver = action.GitIdentity(r.dir)
	}
	a := &action.Promote{Options: o.opts, DryRun: o.dryRun, NoRender: o.noRender, AllowUncommitted: o.allowUncommitted,
		Commit: o.commit, Branch: o.branch, GateCommand: o.commandLine(), // with every flag of the run
		Retry: "run " + o.strata("promote", "--resume") + " to finish the promotion", Rendered: renderedHook}
	res, err := a.Run(context.Background(), r.Repo)
	if res != nil && res.Resumed != nil && !o.output.data() {
		fmt.Fprintf(o.stdout, "completed the interrupted promotion of %s (%s)\n", res.Resumed.Patch, res.Resumed.Component)
		if o.opts.ClusterType != "" {
			fmt.Fprintln(o.stdout, "nothing more was promoted: run the command again to promote further")
		}
	}
	if err != nil {
		return err
	}
	rep := promoteReport{DryRun: o.dryRun, Pending: res.Pending, Resumed: res.Resumed, Plan: res.Plan,
		Rendered: newRenderReport(res.Rendered, false)}
	if res.Commit != nil {
		rep.Commit = &promoteCommit{Commit: res.Commit.Commit, Branch: res.Branch, NewBranch: res.NewBranch, Message: res.Commit.Message}
	}
	switch {
	case o.output.data():
		return o.output.write(o.stdout, rep)
	case rep.Pending != nil:
		fmt.Fprintf(o.stdout, "unfinished: %s\n%s finishes it:\n", rep.Pending.Describe(), o.strata("promote", "--resume"))
		o.print(rep.Pending.Plan)
		return nil
	case rep.Plan == nil && rep.Resumed == nil:
		fmt.Fprintln(o.stdout, "no interrupted promotion to resume")
		return nil
	}
	if rep.Plan != nil {
		o.print(rep.Plan)
	}
	printRerendered(o.stdout, rep.Rendered, o.verbose)
	if c := rep.Commit; c != nil {
		subject, _, _ := strings.Cut(c.Message, "\n")
		o.printCommitted(c, subject, o.branch != "", true)
	} else if rep.Plan != nil && !o.dryRun {
		cfg, err := fleet.ReadConfig(r.fsys, nil)
		if err != nil {
			return err
		}
		o.printNextSteps(rep.Plan, cfg.OutputRoot())
	}
	return nil
}

// (docs/review-flow.md).
func (o *promoteOptions) printNextSteps(p *promote.Plan, outRoot string) {
	w := o.stdout
	fmt.Fprintf(w, "next steps:\n  %[1]s add config/%[2]s/%[3]s %[5]s/\n  %[1]s commit -m %[4]q", o.gitCommand(), p.ClusterType, p.Component, promote.Subject(p), outRoot)
	for _, g := range p.Gates {
		fmt.Fprintf(w, " --trailer %q", "Approved-by: "+o.opts.Approver+" for "+g)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "  (strata promote --commit does this, with what changed where in the message; --branch NAME for a pull request per step)")
}

func (o *promoteOptions) print(p *promote.Plan) {
	w := o.stdout
	prefix := ""
	if o.dryRun {
		prefix = "would be "
		fmt.Fprintln(w, "dry run: nothing is changed")
	}
	fmt.Fprintf(w, "found %s of %s at:\n", p.Patch, p.Component)
	for _, f := range p.Found {
		fmt.Fprintf(w, "  %s\n", f)
	}
	for _, g := range p.Gates {
		fmt.Fprintf(w, "passing manual gate %s (approved by %s)\n", g, o.opts.Approver)
	}
	if p.Target != "" {
		fmt.Fprintf(w, "%spromoted to %s: %s\n", prefix, p.Target, p.TargetFile)
		printWave(w, prefix, p.Wave)
	} else {
		fmt.Fprintln(w, "no further promotion target: the patch has reached the end of the sequence")
	}
	for _, c := range p.Coalesced {
		fmt.Fprintf(w, "%scoalesced: every target under %s has %s: %s\n", prefix, c.Node, p.Patch, c.Into)
		for _, f := range c.From {
			fmt.Fprintf(w, "  %sremoved %s\n", prefix, f)
		}
	}
	if p.Integrated != "" {
		fmt.Fprintf(w, "%sintegrated: every %s has %s: folded into %s and its files removed\n", prefix, "top-level node", p.Patch, p.Integrated)
	}
	switch {
	case p.Next != "":
		fmt.Fprintf(w, "next promotion target: %s\n", p.Next)
	case p.Integrated == "":
		fmt.Fprintln(w, "next: the patch is everywhere; the next promotion folds it into values.yaml")
	}
}

// completePatch offers cluster types, components and patch names.
func completePatch(f *fleet.Fleet, args []string) []string {
	var out []string
	switch len(args) {
	case 0, 1:
		out = completeTypeAndComponent(f, args)
	case 2:
		if ct := f.ClusterType(args[0]); ct != nil {
			if c := ct.Component(args[1]); c != nil {
				seen := map[string]bool{}
				for _, l := range c.Levels {
					for _, p := range l.Patches {
						name := strings.TrimSuffix(p.Path[strings.LastIndexByte(p.Path, '/')+1:], ".yaml")
						if !seen[name] {
							seen[name] = true
							out = append(out, name)
						}
					}
				}
			}
		}
	}
	return out
}
