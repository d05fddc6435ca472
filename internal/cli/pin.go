package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/pin"
)

type pinOptions struct {
	*globals
	opts     pin.Options
	dryRun   bool
	noRender bool
	output   outputFormat
}

func newPinCmd(g *globals) *cobra.Command {
	o := &pinOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "pin NODE REVISION",
		Short: "Pin the Git revision the clusters under a node of the sequence run",
		Long: `Pin sets the revision of a node of the sequence in config/config.yaml: the Git
revision (a commit hash, a tag or a branch) that the clusters under the node run,
inherited by every node below it that has no pin of its own. With --cluster-type
only that cluster type's pin changes. Nodes without any pin follow the
repository's revision (repository.revision, default HEAD).

config.yaml is edited in place, its comments and layout kept. A pin that changes
targets behind a manual gate (promotion: manual) needs --approve, as promote
does. Afterwards the fleet is re-rendered (cluster.revision in the values) and
the inventory's clusters whose revision changed are listed: re-run
strata bootstrap --apply for each, so that its root object follows the pin.`,
		Example: `  # Pin staging to a tested commit
  strata pin staging 826fa76d08fc2ce87c863196e52d5a4fa9259a82

  # Promote that commit to production, a manual gate
  strata pin production 826fa76d08fc2ce87c863196e52d5a4fa9259a82 --approve

  # Pin one cluster type of a sector to a tag
  strata pin production/prod-sector-1 v1.4.0 --cluster-type regional-cluster --approve`,
		Args:              cobra.ExactArgs(2),
		ValidArgsFunction: o.complete,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.output.validate(); err != nil {
				return err
			}
			o.opts.Node, o.opts.Revision = args[0], args[1]
			o.opts.Command = "strata pin " + strings.Join(args, " ")
			if o.opts.ClusterType != "" {
				o.opts.Command += " --cluster-type " + o.opts.ClusterType
			}
			return o.run()
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.opts.ClusterType, "cluster-type", "", "pin this cluster type only (default: every cluster type)")
	f.BoolVar(&o.opts.Approve, "approve", false, "pass the manual gates the pin changes targets behind")
	f.BoolVar(&o.dryRun, "dry-run", false, "print what changes and change nothing")
	f.BoolVar(&o.noRender, "no-render", false, "do not re-render rendered/ afterwards")
	f.StringVarP((*string)(&o.output), "output", "o", "", "output format: text or json")
	return cmd
}

type pinReport struct {
	Plan     *pin.Plan     `json:"plan"`
	DryRun   bool          `json:"dryRun"`
	Rendered *renderReport `json:"rendered,omitempty"`
}

func (o *pinOptions) run() error {
	r, err := o.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	if !o.dryRun {
		l, err := o.lock(r.dir)
		if err != nil {
			return err
		}
		defer l.Release()
	}
	f, err := fleet.Load(r.fsys)
	if err != nil {
		return err
	}
	p, err := pin.Prepare(f, o.opts)
	if err != nil {
		return err
	}
	rep := pinReport{Plan: p, DryRun: o.dryRun}
	if p.Changed && !o.dryRun {
		if err := pin.Apply(r.dir, p); err != nil {
			return fmt.Errorf("writing %s: %w", p.File, err)
		}
		if !o.noRender {
			if rep.Rendered, err = rerender(r); err != nil {
				return fmt.Errorf("the pin is set but rendering failed (fix it, then run strata render): %w", err)
			}
		}
	}
	if o.output.json() {
		return writeJSON(o.stdout, rep)
	}
	o.print(rep)
	return nil
}

func (o *pinOptions) print(rep pinReport) {
	w, p := o.stdout, rep.Plan
	what := "every cluster type"
	if p.ClusterType != "" {
		what = p.ClusterType
	}
	if !p.Changed {
		fmt.Fprintf(w, "%s is already pinned to %s (%s): nothing to do\n", p.Node, p.Revision, what)
		return
	}
	verb := "pinned"
	if rep.DryRun {
		fmt.Fprintln(w, "dry run: nothing is changed")
		verb = "would pin"
	}
	fmt.Fprintf(w, "%s %s to %s (%s) in %s\n", verb, p.Node, p.Revision, what, p.File)
	for _, g := range p.Gates {
		fmt.Fprintf(w, "passing manual gate %s (approved)\n", g)
	}
	if len(p.Changes) == 0 {
		fmt.Fprintln(w, "no target changes revision: the nodes below have pins of their own")
	}
	for _, c := range p.Changes {
		fmt.Fprintf(w, "  %s %s: %s -> %s\n", c.ClusterType, c.Target, short(c.From), short(c.To))
	}
	if rep.Rendered != nil {
		fmt.Fprintf(w, "rendered/: %d files created, %d updated, %d removed\n", rep.Rendered.Created, rep.Rendered.Updated, rep.Rendered.Deleted)
	}
	if rep.DryRun {
		return
	}
	fmt.Fprintf(w, "next steps:\n  git add %s rendered/\n  git commit -m %q\n", p.File, fmt.Sprintf("Pin %s to %s", p.Node, short(p.Revision)))
	for _, c := range p.Clusters {
		fmt.Fprintf(w, "  strata bootstrap %s --apply   # its root object follows the pin\n", c)
	}
}

// short abbreviates a full commit hash as git does.
func short(rev string) string {
	if len(rev) >= 40 && strings.Trim(rev, "0123456789abcdef") == "" {
		return rev[:12]
	}
	return rev
}

// complete offers the nodes of the sequence.
func (o *pinOptions) complete(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	f := o.completionFleet()
	if f == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	f.Config.Root.Walk(func(n *fleet.Node) { out = append(out, n.ID()) })
	return out, cobra.ShellCompDirectiveNoFileComp
}
