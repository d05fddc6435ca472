package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/promote"
)

func newPatchCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "patch",
		Short:   "Start a change to roll out through the sequence",
		Example: "  strata patch new workload-cluster podinfo --at dev --description 'podinfo 6.7.0'",
		Args:    cobra.NoArgs,
	}
	cmd.AddCommand(newPatchNewCmd(g))
	return cmd
}

type patchNewOptions struct {
	*globals
	opts   promote.NewPatchOptions
	file   string
	dryRun bool
	output outputFormat
}

func newPatchNewCmd(g *globals) *cobra.Command {
	o := &patchNewOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "new CLUSTER_TYPE COMPONENT --at NODE",
		Short: "Create the next free patch of a component at a node of the sequence",
		Long: `New creates config/<cluster type>/<component>/<node>/patch-NNN.yaml, NNN one
more than the highest patch of the component anywhere, with a metadata block
(description, owner, ticket, date) that rendering strips and promotion carries
along. The change comes from --file (- for standard input); without it the file
holds a commented example to replace, and render refuses the patch until it
holds a change. Then promote moves it through the sequence.`,
		Example: `  # Start a chart bump at the first node of the rollout, the change on stdin
  printf 'applications:\n  podinfo:\n    source: {targetRevision: 6.7.0}\n' |
    strata patch new workload-cluster podinfo --at dev --description 'podinfo 6.7.0' --owner team-web --ticket WEB-42 -f -

  # Start one and edit it afterwards
  strata patch new workload-cluster podinfo --at dev --description 'tune probes'`,
		Args:              cobra.ExactArgs(2),
		ValidArgsFunction: g.completion(2, completeTypeAndComponent),
		RunE: func(_ *cobra.Command, args []string) error {
			o.opts.ClusterType, o.opts.Component = args[0], args[1]
			return o.run()
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.opts.At, "at", "", "the node of the sequence the patch starts at (required)")
	f.StringVar(&o.opts.Meta.Description, "description", "", "what the change is (required)")
	f.StringVar(&o.opts.Meta.Owner, "owner", "", "who owns the change")
	f.StringVar(&o.opts.Meta.Ticket, "ticket", "", "the ticket or issue of the change")
	f.StringVarP(&o.file, "file", "f", "", "a YAML file with the change (- for standard input)")
	f.BoolVar(&o.dryRun, "dry-run", false, "print the file and write nothing")
	addOutputFlag(f, &o.output, "")
	_ = cmd.MarkFlagRequired("at")
	_ = cmd.MarkFlagRequired("description")
	return cmd
}

func (o *patchNewOptions) run() error {
	if o.file != "" {
		body, err := o.readBody()
		if err != nil {
			return err
		}
		o.opts.Body = body
	}
	r, err := o.open(action.Options{Lock: exclusiveIf(!o.dryRun)})
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := (&action.NewPatch{Options: o.opts, DryRun: o.dryRun}).Run(r.Repo)
	if err != nil {
		return err
	}
	p := res.NewPatch
	if o.output.data() {
		return o.output.write(o.stdout, struct {
			*promote.NewPatch
			DryRun  bool   `json:"dryRun"`
			Content string `json:"content"`
		}{p, o.dryRun, string(p.Data)})
	}
	verb := "created"
	if o.dryRun {
		verb = "would create"
	}
	fmt.Fprintf(o.stdout, "%s %s (%s of %s at %s)\n", verb, p.Path, p.Patch, o.opts.Component, p.Node)
	if o.dryRun {
		fmt.Fprintf(o.stdout, "---\n%s", p.Data)
	}
	if p.Empty {
		fmt.Fprintf(o.stdout, "next: write the change into %s, then %s\n", p.Path, o.next(res.Next[0]))
	} else {
		fmt.Fprintf(o.stdout, "next: %s, then %s\n", o.next(res.Next[0]), o.next(res.Next[1]))
	}
	return nil
}

// readBody reads --file, - being standard input.
func (o *patchNewOptions) readBody() ([]byte, error) {
	if o.file == "-" {
		return io.ReadAll(o.stdin)
	}
	data, err := os.ReadFile(o.file)
	if err != nil {
		return nil, fmt.Errorf("reading the change: %w", err)
	}
	return data, nil
}
