package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/validate"
)

type validateOptions struct {
	*globals
	output outputFormat
}

func newValidateCmd(g *globals) *cobra.Command {
	o := &validateOptions{globals: g}
	cmd := &cobra.Command{
		Use:         "validate",
		Annotations: map[string]string{reportAnnotation: "yes"},
		Short:       "Check the rendered Applications and ApplicationSets as Argo CD's API server would",
		Long: `Validate renders every target in memory (nothing is written) and checks the
result: Argo CD's CRD schemas, the sources of this repository, references to
missing keys, name collisions, conflicting patches and strata's policies.
Errors exit 1, warnings do not; a repository that does not load or render exits
3. docs/validate.md says it in full.`,
		Example: `  # Check the fleet of the current repository
  strata validate

  # Every finding as JSON, for CI annotations or other tools
  strata validate -o json`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return o.run()
		},
	}
	addOutputFlag(cmd.Flags(), &o.output, "")
	return cmd
}

func (o *validateOptions) run() error {
	r, err := o.open(action.Options{})
	if err != nil {
		return err
	}
	defer r.Close()
	opts := validate.Options{FS: r.fsys, Dir: r.dir}
	var stop func()
	if !o.output.data() && isTerminal(o.stderr) {
		opts.Progress, stop = (&renderOptions{globals: o.globals}).progress()
	}
	rep, err := validate.Check(opts)
	if stop != nil {
		stop()
	}
	if err != nil {
		return err
	}
	if o.output.data() {
		if err := o.output.write(o.stdout, rep); err != nil {
			return err
		}
	} else {
		printFindings(o.stdout, rep.Findings, o.verbose)
		fmt.Fprintf(o.stdout, "checked %s of %s against the Argo CD %s schemas: %s\n",
			plural(rep.Resources, "resource"), plural(rep.Targets, "target"), rep.ArgoCD, countSummary(rep))
	}
	if n := rep.Count(validate.Error); n > 0 {
		return &exitError{code: exitFindings, msg: "validate: " + countSummary(rep)}
	}
	return nil
}

// countSummary says how many errors and warnings a report has.
func countSummary(rep *validate.Report) string {
	return plural(rep.Count(validate.Error), "error") + ", " + plural(rep.Count(validate.Warning), "warning")
}

func plural(n int, word string) string { return count(n, word, word+"s") }

// printFindings prints findings grouped by file. A finding that repeats one
// printed for an earlier file (the same field, message and source in another
// target) is not printed again: the first one lists the other files.
func printFindings(w io.Writer, findings []validate.Finding, verbose bool) {
	type key struct{ sev, check, rule, path, msg, source string }
	first := map[key]int{} // key -> index of its first finding
	also := map[int][]string{}
	for i, f := range findings {
		k := key{string(f.Severity), f.Check, f.Rule, f.Path, f.Message, f.Source}
		if j, ok := first[k]; ok && findings[j].File != f.File {
			also[j] = append(also[j], f.File)
			continue
		}
		first[k] = i
	}
	file := ""
	for i, f := range findings {
		k := key{string(f.Severity), f.Check, f.Rule, f.Path, f.Message, f.Source}
		if first[k] != i {
			continue
		}
		if f.File != file {
			file = f.File
			fmt.Fprintln(w, file)
		}
		msg := f.Message
		if f.Path != "" {
			msg = f.Path + ": " + msg
		}
		label := string(f.Severity)
		if f.Rule != "" {
			label += " (" + f.Rule + ")"
		}
		fmt.Fprintf(w, "  %s: %s\n", label, msg)
		if f.Line > 0 {
			fmt.Fprintf(w, "    %s:%d\n", f.File, f.Line)
		}
		if f.Source != "" {
			fmt.Fprintf(w, "    %s\n", f.Source)
		}
		if others := also[i]; len(others) > 0 {
			fmt.Fprintf(w, "    also in %s\n", nameList(others, verbose))
		}
	}
}
