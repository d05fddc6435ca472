package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/diff"
)

type diffOptions struct {
	*globals
	base     string
	target   string
	exitCode bool
	hydrate  bool
	output   outputFormat
	live     liveOptions
}

func newDiffCmd(g *globals) *cobra.Command {
	o := &diffOptions{globals: g}
	cmd := &cobra.Command{
		Use:         "diff",
		Annotations: map[string]string{reportAnnotation: "yes"},
		Short:       "Show what the change since a revision does to the rendered output",
		Long: `Diff renders the fleet at a Git revision (default HEAD; A...B the merge base)
and in the working tree, both in memory, and prints a unified diff of each
resource that changes, then a summary line; --hydrate compares what the sources
deploy. docs/commands.md#strata-diff says it in full.`,
		Example: `  # What do my uncommitted changes do?
  strata diff

  # In CI on a pull request: the change against its merge base
  strata diff --base origin/main...HEAD

  # What a chart edit or a chart version bump does to the Deployments
  strata diff --hydrate

  # Only production, as JSON
  strata diff --base v1.4.0 --target 'production/*' -o json

  # What runs that Git does not say, and why Argo CD reports drift
  strata diff --live --cluster-context hub-use1=admin@hub-use1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.live.validate(); err != nil {
				return err
			}
			if o.live.on {
				if o.hydrate {
					return usageErrorf("--hydrate compares what the sources build at a revision and now, --live compares with the clusters: use one of them")
				}
				if cmd.Flags().Changed("base") {
					return usageErrorf("--base compares with a revision and --live with the clusters: use one of them")
				}
				return o.runLive(cmd.Context())
			}
			return o.run()
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.base, "base", "HEAD", "the `REV`ision to compare with (A...B: the merge base of A and B)")
	f.StringVar(&o.target, "target", "", "compare only the targets that match `GLOB` (or whose parents do)")
	_ = cmd.RegisterFlagCompletionFunc("target", g.completeTargetPattern())
	f.BoolVar(&o.exitCode, "exit-code", false, "exit 1 when any target changes")
	f.BoolVar(&o.hydrate, "hydrate", false, "also diff the Kubernetes objects the Applications' sources build (local charts, overlays, directories; remote charts from Helm's cache)")
	addOutputFlag(f, &o.output, "or markdown: a pull request comment", "markdown")
	o.live.addFlags(f, "compare rendered/ with the Applications Argo CD has, and say what it reports out of sync")
	return cmd
}

func (o *diffOptions) run() error {
	r, err := o.open(action.Options{})
	if err != nil {
		return err
	}
	defer r.Close()
	read := diff.ReadRevision
	if o.hydrate {
		read = diff.ReadRevisionAll
	}
	base, err := read(r.dir, o.base)
	if err != nil {
		return err
	}
	res, err := diff.Compare(diff.Options{Base: base, Head: r.fsys, Target: o.target, Hydrate: o.hydrate, ChartCache: chartCache()})
	if err != nil {
		return err
	}
	switch {
	case o.output.data():
		if err := o.output.write(o.stdout, res); err != nil {
			return err
		}
	case o.output == "markdown":
		printDiffMarkdown(o.stdout, res, o.strata)
	default:
		printDiff(o.stdout, res, useColor(o.stdout))
	}
	if o.exitCode && (res.Changed > 0 || len(res.Hydrated) > 0) {
		return &exitError{code: exitFindings}
	}
	return nil
}

// ANSI colours of diff lines.
var diffColors = map[string]string{"file": "\x1b[1m", "hunk": "\x1b[36m", "add": "\x1b[32m", "del": "\x1b[31m"}

func printDiff(w io.Writer, res *diff.Result, color bool) {
	for _, t := range res.Changes {
		head := fmt.Sprintf("=== %s (%s)", t.Target, t.Status)
		fmt.Fprintln(w, paint(head, "\x1b[1;33m", color))
		for _, f := range t.Files {
			for _, line := range strings.SplitAfter(f.Diff, "\n") {
				if line == "" {
					continue
				}
				fmt.Fprint(w, paint(strings.TrimSuffix(line, "\n"), diffColors[diff.LineKind(line)], color)+"\n")
			}
		}
		fmt.Fprintln(w)
	}
	if dels := res.Deletions(); len(dels) > 0 {
		fmt.Fprintln(w, paint(fmt.Sprintf("destructive: the change deletes %s:", plural(len(dels), "resource")), "\x1b[1;31m", color))
		for _, d := range dels {
			fmt.Fprintf(w, "  %s\n", d)
		}
	}
	fmt.Fprintln(w, res.Summary())
	if res.Hydrated != nil { // --hydrate
		printHydrated(w, res.Hydrated, color)
	}
}

func paint(s, style string, color bool) string {
	if !color || style == "" {
		return s
	}
	return style + s + "\x1b[0m"
}
