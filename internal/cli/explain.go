package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/explain"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/status"
)

type explainOptions struct {
	*globals
	output outputFormat
}

func newExplainCmd(g *globals) *cobra.Command {
	o := &explainOptions{globals: g}
	cmd := &cobra.Command{
		Use:         "explain TARGET COMPONENT FIELD",
		Annotations: map[string]string{reportAnnotation: "yes"},
		Short:       "Show a value's effective setting and the files and lines that set it",
		Long: `Explain prints the effective value of FIELD of COMPONENT at TARGET and the
chain of files and lines that set it, in merge order (most specific last).
docs/commands.md#strata-explain says it in full.`,
		Example: `  strata explain production/prod-sector-1/us-east1 cert-manager source.targetRevision
  strata explain integration/int-sector-1/us-central1 cert-manager source.helm.valuesObject
  strata explain production/prod-canary/us-east1 hypershift 'sources[0].targetRevision' -o json`,
		Args:              cobra.ExactArgs(3),
		ValidArgsFunction: g.completion(2, completeTargetComponent),
		RunE: func(_ *cobra.Command, args []string) error {
			return o.run(args[0], args[1], args[2])
		},
	}
	addOutputFlag(cmd.Flags(), &o.output, "")
	return cmd
}

func (o *explainOptions) run(target, component, field string) error {
	if _, err := explain.ParsePath(field); err != nil {
		return &usageError{err}
	}
	r, err := o.open(action.Options{})
	if err != nil {
		return err
	}
	defer r.Close()
	f, err := fleet.Load(r.fsys)
	if err != nil {
		return err
	}
	ct, n, err := status.FindComponentTarget(f, target, component)
	if err != nil {
		return err
	}
	var res *explain.Result
	if explain.IsClusterField(field) {
		res, err = explain.Cluster(f, ct, n, status.TargetName(f, ct, n), component, field)
	} else {
		res, err = explain.Explain(ct, n, status.TargetName(f, ct, n), component, field)
	}
	if err != nil {
		return err
	}
	if o.output.data() {
		return o.output.write(o.stdout, res)
	}
	printExplain(o.stdout, res)
	return nil
}

func printExplain(w io.Writer, res *explain.Result) {
	switch {
	case !res.Set:
		fmt.Fprintf(w, "%s is not set at %s: a file replaces a parent of it\n", res.Field, res.Target)
	case res.Lines != nil:
		fmt.Fprintf(w, "%s at %s:\n", res.Field, res.Target)
		for _, line := range strings.Split(strings.TrimSuffix(explain.Format(res.Lines), "\n"), "\n") {
			fmt.Fprintf(w, "  %s\n", line)
		}
	case strings.Contains(res.Value, "\n"):
		fmt.Fprintf(w, "%s at %s:\n", res.Field, res.Target)
		for _, line := range strings.Split(res.Value, "\n") {
			fmt.Fprintf(w, "  %s\n", line)
		}
	default:
		fmt.Fprintf(w, "%s = %s at %s\n", res.Field, res.Value, res.Target)
	}
	fmt.Fprintf(w, "\nset by, most specific last:\n")
	lw, vw, oneLine := 0, 0, true
	for _, s := range res.Chain {
		lw = max(lw, len(layerName(s)))
		vw = max(vw, len(s.Value))
		oneLine = oneLine && !strings.Contains(s.Value, "\n")
	}
	vw = min(vw, 40)
	for _, s := range res.Chain {
		note := ""
		switch {
		case s.Parent && s.Effective:
			note = "  (removes it: sets " + s.At + ")"
		case s.Parent:
			note = "  (replaced " + s.At + "; set again later)"
		case !s.Effective:
			note = "  (overridden)"
		}
		if oneLine {
			fmt.Fprintf(w, "  %-*s  %-*s  %s%s\n", lw, layerName(s), vw, s.Value, s.Pos(), note)
			continue
		}
		fmt.Fprintf(w, "  %-*s  %s%s\n", lw, layerName(s), s.Pos(), note)
		for _, line := range strings.Split(s.Value, "\n") {
			fmt.Fprintf(w, "  %*s    %s\n", lw, "", line)
		}
	}
}

func layerName(s explain.Step) string {
	if s.Chart != "" {
		return s.Layer + " " + s.Chart
	}
	if s.Level == "" {
		return s.Layer
	}
	return s.Layer + " " + s.Level
}

// completeTargetComponent offers targets, then components.
func completeTargetComponent(f *fleet.Fleet, args []string) []string {
	var out []string
	switch len(args) {
	case 0:
		for _, ct := range f.ClusterTypes {
			for _, n := range ct.Targets {
				out = append(out, status.TargetName(f, ct, n))
			}
		}
	case 1:
		if ct, _, err := status.FindTarget(f, args[0]); err == nil {
			for _, c := range ct.Components {
				out = append(out, c.Name)
			}
		}
	}
	return out
}
