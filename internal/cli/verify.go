package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/diff"
	"github.com/strata-fleet/strata/internal/promote"
	"github.com/strata-fleet/strata/internal/verify"
)

type verifyOptions struct {
	*globals
	base   string
	output outputFormat
}

func newVerifyCmd(g *globals) *cobra.Command {
	o := &verifyOptions{globals: g}
	cmd := &cobra.Command{
		Use:         "verify --base REV",
		Annotations: map[string]string{reportAnnotation: "yes"},
		Short:       "Check that a change respects the sequence and its gates (for CI)",
		Long: `Verify is the check CI requires on every change: it compares the fleet at the
merge base of REV and HEAD with the working tree and prints each finding (gap,
gate, edited-in-gate, removed-in-gate, outside-patch, frozen) as FILE:LINE:
TARGET: RULE: message. Exit 0: no findings; 3: findings; 1: an error.
docs/commands.md#strata-verify says it in full.`,
		Example: `  # In CI, on every pull request
  strata verify --base origin/main

  # As JSON, for annotations
  strata verify --base origin/main -o json`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return o.run()
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.base, "base", "", "the `REV`ision the change starts from (its merge base with HEAD is used; A...B names the merge base of A and B)")
	addOutputFlag(f, &o.output, "")
	_ = cmd.MarkFlagRequired("base")
	return cmd
}

func (o *verifyOptions) run() error {
	r, err := o.open(action.Options{})
	if err != nil {
		return err
	}
	defer r.Close()
	rev := o.base
	if !strings.Contains(rev, "...") {
		rev += "...HEAD"
	}
	base, err := diff.ReadRevision(r.dir, rev)
	if err != nil {
		return err
	}
	base.Rev = o.base
	values, err := diff.Trailers(r.dir, base.Commit, "Approved-by")
	if err != nil {
		return err
	}
	var trailers []promote.Approval
	for _, v := range values {
		trailers = append(trailers, verify.ParseTrailer(v)...)
	}
	res, err := verify.Check(verify.Options{Base: base, Head: r.fsys, Trailers: trailers})
	if err != nil {
		return err
	}
	// The commands a finding names, printed as errors' are (with --root).
	for i, f := range res.Findings {
		if len(f.Text.Commands()) > 0 {
			res.Findings[i].Message = f.Text.Print(o.next)
		}
	}
	if o.output.data() {
		if err := o.output.write(o.stdout, res); err != nil {
			return err
		}
	} else {
		o.printFindings(res.Findings)
		fmt.Fprintln(o.stdout, res.Summary())
	}
	if len(res.Findings) > 0 {
		return &exitError{code: exitFindings, msg: "verify: " + res.Summary()}
	}
	return nil
}

// printFindings prints the findings that say the same of one file and line
// once, with the targets they concern summarised (all of them under -v):
// one edit of a values.yaml behind a gate is one line, not one per target.
func (o *verifyOptions) printFindings(findings []verify.Finding) {
	type key struct {
		file       string
		line       int
		rule, text string
	}
	var g group[key]
	for _, f := range findings {
		g.add(key{f.File, f.Line, f.Rule, f.Message}, f.Target)
	}
	for _, k := range g.keys {
		where := k.file
		if k.line > 0 {
			where = fmt.Sprintf("%s:%d", k.file, k.line)
		}
		targets := g.names[k]
		what := targets[0]
		if len(targets) > 1 {
			what = fmt.Sprintf("%d targets (%s)", len(targets), nameList(targets, o.verbose))
		}
		fmt.Fprintf(o.stdout, "%s: %s: %s: %s\n", where, what, k.rule, k.text)
	}
}
