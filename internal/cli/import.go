package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/importer"
)

type importOptions struct {
	*globals
	into        string
	clusterType string
	dimensions  []string
	secrets     []string
	output      outputFormat
}

// importReport is what strata import -o json prints.
type importReport struct {
	Format      string             `json:"format"`
	Source      string             `json:"source"`
	Into        string             `json:"into"`
	ClusterType string             `json:"clusterType"`
	Targets     []string           `json:"targets"`
	Objects     int                `json:"objects"`
	Written     []string           `json:"written"`
	Findings    []importer.Finding `json:"findings"`
}

func newImportCmd(g *globals) *cobra.Command {
	o := &importOptions{globals: g}
	var formats []string
	for _, f := range importer.Formats() {
		formats = append(formats, fmt.Sprintf("  %-14s %s", f.Name, f.Summary))
	}
	cmd := &cobra.Command{
		Use:   "import FORMAT SOURCE --into DIR",
		Short: "Make a strata fleet of a repository that runs its clusters with Argo CD another way",
		Long: `Import reads SOURCE, a repository's directory in FORMAT, and writes into DIR a
strata fleet's config/ from which strata render makes the same Argo CD objects,
checked by rendering it before anything is written; it prints what it could not
carry over and the faults it found. docs/commands.md#strata-import and
docs/import.md say it in full.

Formats:
` + strings.Join(formats, "\n"),
		Example: `  strata import applications apps/gitops/argocd --into .
  strata import applications apps/gitops/argocd --into ../fleet -o json
  strata --root . render`,
		Args: cobra.ExactArgs(2),
		RunE: func(_ *cobra.Command, args []string) error {
			if o.into == "" {
				return usageErrorf("--into DIR: the directory to write the fleet's config/ into (it may be SOURCE's repository)")
			}
			return o.run(args[0], args[1])
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.into, "into", "", "the directory to write the fleet's config/ into (required)")
	f.StringVar(&o.clusterType, "cluster-type-name", "", "the name of the cluster type the targets form (default: SOURCE's directory name)")
	f.StringSliceVar(&o.dimensions, "dimensions", nil, "the names of the dimensions, outermost first (default: the format's)")
	f.StringArrayVar(&o.secrets, "cluster-secret", nil, "a file of cluster Secret manifests no file of SOURCE says (eks-fleet: the hub's); repeatable")
	addOutputFlag(f, &o.output, "")
	return cmd
}

func (o *importOptions) run(format, source string) error {
	res, err := action.Import{Format: format, Source: source, Into: o.into, ClusterType: o.clusterType, Dimensions: o.dimensions,
		ClusterSecrets: o.secrets}.Run()
	if err != nil {
		return err
	}
	rep := importReport{Format: format, Source: source, Into: o.into, ClusterType: res.Source.ClusterType,
		Written: res.Written, Findings: res.Findings}
	for _, t := range res.Source.Targets {
		rep.Targets = append(rep.Targets, t.Label())
		rep.Objects += len(t.Objects)
	}
	if rep.Findings == nil {
		rep.Findings = []importer.Finding{}
	}
	if o.output.data() {
		return o.output.write(o.stdout, rep)
	}
	w := o.stdout
	fmt.Fprintf(w, "imported %d objects of %d targets (%s) from %s: wrote %d files under %s\n",
		rep.Objects, len(rep.Targets), strings.Join(rep.Targets, ", "), source, len(rep.Written), joinPath(o.into, "config"))
	fmt.Fprintf(w, "checked: strata render and Argo CD's render of its output give the source's objects, but for what is listed below\n")
	if len(rep.Findings) > 0 {
		fmt.Fprintf(w, "not carried over, or at fault in the source (%d):\n", len(rep.Findings))
		for _, f := range rep.Findings {
			mark := "  "
			if f.Fault {
				mark = "! "
			}
			fmt.Fprintf(w, "%s%s\n", mark, f)
		}
	}
	fmt.Fprintf(w, "next: strata --root %s render\n", o.into)
	return nil
}

func joinPath(dir, name string) string {
	if dir == "." || dir == "" {
		return name
	}
	return strings.TrimSuffix(dir, "/") + "/" + name
}
