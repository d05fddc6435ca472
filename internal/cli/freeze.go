package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/freeze"
	"github.com/strata-fleet/strata/internal/git"
)

type freezeOptions struct {
	*globals
	unfreeze bool
	node     string
	reason   string
	by       string
	noCommit bool
	push     bool
	list     bool
	output   outputFormat
}

func newFreezeCmd(g *globals) *cobra.Command {
	o := &freezeOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "freeze [NODE] --reason TEXT",
		Short: "Stop every promote and rollout from starting a step into a node (the whole fleet without NODE)",
		Long: `Freeze records in config/freezes.yaml that a node of the sequence (without
NODE, the whole fleet) is frozen, by whom and why, and commits it: promote and
rollout take no step into it until strata unfreeze. --list prints the freezes.
docs/commands.md#strata-freeze says it in full.`,
		Example: `  # An incident: stop every rollout, everywhere
  strata freeze --reason "INC-4711: database failover in eu-west1" --push

  # Freeze production only
  strata freeze production --reason "end-of-year change freeze"

  # What is frozen
  strata freeze --list`,
		Args: cobra.MaximumNArgs(1),
		RunE: o.validateAndRun,
	}
	f := cmd.Flags()
	f.StringVar(&o.reason, "reason", "", "why the node is frozen (recorded, and printed to whoever is held)")
	f.BoolVar(&o.list, "list", false, "print the freezes and change nothing")
	o.flags(cmd)
	return cmd
}

func newUnfreezeCmd(g *globals) *cobra.Command {
	o := &freezeOptions{globals: g, unfreeze: true}
	cmd := &cobra.Command{
		Use:   "unfreeze [NODE]",
		Short: "Lift the freeze of a node (of the whole fleet without NODE)",
		Long: `Unfreeze removes the freeze of NODE (without NODE, the freeze of the whole
fleet) from config/freezes.yaml and commits it, its message naming who lifts
it, why (--reason, optional) and the freeze lifted. Rollouts held by it go on.`,
		Example: `  strata unfreeze --push
  strata unfreeze production --reason "INC-4711 resolved: failover complete"`,
		Args: cobra.MaximumNArgs(1),
		RunE: o.validateAndRun,
	}
	cmd.Flags().StringVar(&o.reason, "reason", "", "why the freeze is lifted (recorded in the commit)")
	o.flags(cmd)
	return cmd
}

func (o *freezeOptions) flags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.by, "by", "", "who, `\"Name <email>\"` (default: git's user.name and user.email)")
	f.BoolVar(&o.noCommit, "no-commit", false, "write config/freezes.yaml and leave committing it to you")
	f.BoolVar(&o.push, "push", false, "push the commit to the branch's upstream")
	addOutputFlag(f, &o.output, "")
}

func (o *freezeOptions) validateAndRun(_ *cobra.Command, args []string) error {
	if len(args) == 1 {
		o.node = strings.Trim(args[0], "/")
	}
	switch {
	case o.list && (o.node != "" || o.reason != "" || o.push || o.noCommit):
		return usageErrorf("--list changes nothing: give no NODE, --reason, --push or --no-commit with it")
	case !o.unfreeze && !o.list && strings.TrimSpace(o.reason) == "":
		return usageErrorf("--reason is required: say why, for whoever is held by the freeze")
	case o.push && o.noCommit:
		return usageErrorf("--push pushes the commit --no-commit does not make: give one or the other")
	}
	return o.run(context.Background())
}

// freezeReport is what freeze and unfreeze did.
type freezeReport struct {
	// Frozen is the freeze added, Unfrozen the one lifted.
	Frozen   *freeze.Freeze `json:"frozen,omitempty"`
	Unfrozen *freeze.Freeze `json:"unfrozen,omitempty"`
	// Reason is why the freeze was lifted (unfreeze --reason).
	Reason string `json:"reason,omitempty"`
	Commit string `json:"commit,omitempty"`
	Pushed bool   `json:"pushed,omitempty"`
	// Freezes are the freezes afterwards.
	Freezes []freeze.Freeze `json:"freezes"`
}

func (o *freezeOptions) run(ctx context.Context) error {
	r, err := o.open(action.Options{Lock: exclusiveIf(!o.list)})
	if err != nil {
		return err
	}
	defer r.Close()
	if o.list {
		freezes, err := action.Freezes(r.Repo)
		if err != nil {
			return err
		}
		return o.printList(freezes)
	}
	a := &action.Freeze{Unfreeze: o.unfreeze, Node: o.node, Reason: o.reason, By: o.by, NoCommit: o.noCommit, Push: o.push}
	res, err := a.Run(ctx, r.Repo)
	if err != nil {
		return err
	}
	rep := freezeReport{Frozen: res.Frozen, Unfrozen: res.Unfrozen, Reason: res.Reason, Commit: res.Commit, Pushed: res.Pushed, Freezes: res.Freezes}
	return o.print(rep, res.Subject)
}

func (o *freezeOptions) print(rep freezeReport, subject string) error {
	if o.output.data() {
		return o.output.write(o.stdout, rep)
	}
	w := o.stdout
	if rep.Frozen != nil {
		fmt.Fprintf(w, "frozen: %s\n", rep.Frozen)
	} else {
		fmt.Fprintf(w, "unfrozen: %s (it was frozen by %s: %s)\n", rep.Unfrozen.Scope(), rep.Unfrozen.By, rep.Unfrozen.Reason)
	}
	switch {
	case rep.Pushed:
		fmt.Fprintf(w, "committed and pushed %s: %s\n", git.Short(rep.Commit), subject)
	case rep.Commit != "":
		fmt.Fprintf(w, "committed %s: %s\nnext: push it (%s push) so that rollouts running from other clones see it\n", git.Short(rep.Commit), subject, o.gitCommand())
	default:
		fmt.Fprintf(w, "%s is written, not committed\n", freeze.File)
	}
	return nil
}

func (o *freezeOptions) printList(freezes []freeze.Freeze) error {
	if o.output.data() {
		return o.output.write(o.stdout, freezeReport{Freezes: append([]freeze.Freeze{}, freezes...)})
	}
	if len(freezes) == 0 {
		fmt.Fprintln(o.stdout, "nothing is frozen")
	}
	for _, f := range freezes {
		fmt.Fprintf(o.stdout, "%s:%d: %s\n", freeze.File, f.Pos.Line, f)
	}
	return nil
}
