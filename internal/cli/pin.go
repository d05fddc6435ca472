package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/pin"
)

type pinOptions struct {
	*globals
	opts     pin.Options
	force    bool
	dryRun   bool
	noRender bool
	output   outputFormat
	approver string // who approves the gates, for the commit's trailer
	// commit and branch: --commit, --branch, as promote's.
	commit bool
	branch string
}

func newPinCmd(g *globals) *cobra.Command {
	o := &pinOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "pin NODE REVISION",
		Short: "Pin the Git revision the clusters under a node of the sequence run",
		Long: `Pin sets the Git revision the clusters under NODE run (config.yaml's pin, or
with --name a named revision), checked in the repository's Git clone as Argo CD
will look it up, then re-renders; a pin behind a manual gate needs --approve.
docs/commands.md#strata-pin says it in full.`,
		Example: `  # Pin staging to a tested commit
  strata pin staging 826fa76d08fc2ce87c863196e52d5a4fa9259a82

  # Promote that commit to production, a manual gate
  strata pin production 826fa76d08fc2ce87c863196e52d5a4fa9259a82 --approve

  # Pin one cluster type of a sector to a tag
  strata pin production/prod-sector-1 v1.4.0 --cluster-type regional-cluster --approve

  # Pin the charts apart from the root (config.yaml's revisions: {charts: {}})
  strata pin staging 826fa76d08fc2ce87c863196e52d5a4fa9259a82 --name charts

  # Commit the pin with its approval on a branch, for a pull request
  strata pin production v1.4.0 --approve --approver "Jane Doe <jane@example.com>" --branch pin/production-v1.4.0`,
		Args:              cobra.ExactArgs(2),
		ValidArgsFunction: g.completion(1, completeNodes),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.opts.Node, o.opts.Revision = args[0], args[1]
			// The gate's hint repeats the run's every flag.
			o.opts.Command = g.commandLine()
			o.commit = o.commit || o.branch != ""
			switch {
			case o.commit && o.dryRun:
				return usageErrorf("--commit and --branch make a commit; --dry-run changes nothing: give one or the other")
			case o.commit && o.noRender:
				return usageErrorf("--commit and --branch commit rendered/ with config/; --no-render would commit config/ out of step with it")
			}
			return o.run(cmd.Context())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.opts.ClusterType, "cluster-type", "", "pin this cluster type only (default: every cluster type)")
	f.StringVar(&o.opts.Name, "name", "", "pin the named revision `NAME` of config.yaml's revisions: (default: the root's revision)")
	f.BoolVar(&o.opts.Approve, "approve", false, "pass the manual gates the pin changes targets behind")
	f.BoolVar(&o.force, "force", false, "pin a revision that the repository's Git clone cannot resolve")
	f.BoolVar(&o.dryRun, "dry-run", false, "print what changes and change nothing")
	f.BoolVar(&o.noRender, "no-render", false, "do not re-render rendered/ afterwards")
	f.StringVar(&o.approver, "approver", "", "who approves, `\"Name <email>\"` (default: git's user.name and user.email)")
	f.BoolVar(&o.commit, "commit", false, "commit the pin: config/config.yaml and rendered/, nothing else, the approvals as Approved-by trailers")
	f.StringVar(&o.branch, "branch", "", "commit the pin on branch `NAME` (created at HEAD when it does not exist), for a pull request; implies --commit")
	addOutputFlag(f, &o.output, "")
	return cmd
}

type pinReport struct {
	Plan *pin.Plan `json:"plan"`
	// Resolution is what the Git clone knows of the revision.
	Resolution *pin.Resolution `json:"resolution,omitempty"`

	DryRun   bool          `json:"dryRun"`
	Rendered *renderReport `json:"rendered,omitempty"`
	// Commit is what --commit did.
	Commit *promoteCommit `json:"commit,omitempty"`
	// Branch is the revision the clusters' root objects read the pin at.
	Branch string `json:"branch"`
}

func (o *pinOptions) run(ctx context.Context) error {
	r, err := o.open(action.Options{Lock: exclusiveIf(!o.dryRun)})
	if err != nil {
		return err
	}
	defer r.Close()
	a := &action.Pin{Options: o.opts, Force: o.force, DryRun: o.dryRun, NoRender: o.noRender,
		Approver: o.approver, Commit: o.commit, Branch: o.branch,
		Warn:     func(w string) { fmt.Fprintf(o.stderr, "strata: warning: %s\n", w) },
		Rendered: renderedHook, Switching: switchingHook}
	res, err := a.Run(ctx, r.Repo)
	if err != nil {
		return err
	}
	o.approver = res.Approver
	rep := pinReport{Plan: res.Plan, Resolution: res.Resolution, DryRun: o.dryRun, Branch: res.Branch,
		Rendered: newRenderReport(res.Rendered, false)}
	if c := res.Commit; c != nil {
		rep.Commit = &promoteCommit{Commit: c.Commit, Branch: c.Branch, NewBranch: c.NewBranch, Message: c.Message}
	}
	if o.output.data() {
		return o.output.write(o.stdout, rep)
	}
	o.print(rep, res.OutputRoot)
	return nil
}

// completeNodes offers the nodes of the sequence.
func completeNodes(f *fleet.Fleet, _ []string) []string {
	var out []string
	f.Config.Root.Walk(func(n *fleet.Node) { out = append(out, n.ID()) })
	return out
}

func (o *pinOptions) print(rep pinReport, outRoot string) {
	w, p := o.stdout, rep.Plan
	what := "every cluster type"
	if p.ClusterType != "" {
		what = p.ClusterType
	}
	if !p.Changed {
		fmt.Fprintf(w, "%s is already pinned to %s (%s): nothing to do\n", pin.What(p), p.Revision, what)
		return
	}
	verb := "pinned"
	if rep.DryRun {
		fmt.Fprintln(w, "dry run: nothing is changed")
		verb = "would pin"
	}
	fmt.Fprintf(w, "%s %s to %s (%s) in %s\n", verb, pin.What(p), p.Revision, what, p.File)
	if res := rep.Resolution; res != nil && res.Commit != "" && res.Commit != p.Revision {
		fmt.Fprintf(w, "%s: %s, commit %s in this clone\n", p.Revision, res.Kind, git.Short(res.Commit))
	}
	approvedBy := ""
	if o.approver != "" {
		approvedBy = " by " + o.approver
	}
	for _, g := range p.Gates {
		fmt.Fprintf(w, "passing manual gate %s (approved%s)\n", g, approvedBy)
	}
	if len(p.Changes) == 0 {
		fmt.Fprintln(w, "no target changes revision: the nodes below have pins of their own")
	} else {
		verb := "change"
		if len(p.Changes) == 1 {
			verb = "changes"
		}
		fmt.Fprintf(w, "%s %s revision:\n", plural(len(p.Changes), "target"), verb)
	}
	if o.verbose {
		for _, c := range p.Changes {
			fmt.Fprintf(w, "  %s %s: %s -> %s\n", c.ClusterType, c.Target, git.Short(c.From), git.Short(c.To))
		}
	} else {
		for _, g := range pin.Groups(p.Changes) {
			for _, l := range g.Lines(func(names []string) string { return nameList(names, false) }) {
				fmt.Fprintf(w, "  %s\n", l)
			}
		}
	}
	printRerendered(w, rep.Rendered, o.verbose)
	if rep.DryRun {
		return
	}
	if c := rep.Commit; c != nil {
		o.printCommitted(c, pin.Subject(p), o.branch != "", false)
		o.printFollow(rep.Branch, p)
		return
	}
	fmt.Fprintf(w, "next steps:\n  %[1]s add %[2]s %[4]s/\n  %[1]s commit -m %[3]q", o.gitCommand(), p.File, pin.Subject(p), outRoot)
	approver := o.approver
	if approver == "" {
		approver = "Name <email>"
	}
	for _, g := range p.Gates {
		fmt.Fprintf(w, " --trailer %q", "Approved-by: "+approver+" for "+g)
	}
	fmt.Fprintln(w)
	o.printFollow(rep.Branch, p)
}

// printFollow says which clusters follow the pin once it is on the branch.
func (o *pinOptions) printFollow(branch string, p *pin.Plan) {
	if len(p.Clusters) == 0 {
		return
	}
	fmt.Fprintf(o.stdout, "once the commit is on %s, the root objects of %s read the pin there and follow it (no bootstrap needed)\n", branch, nameList(p.Clusters, o.verbose))
}
