package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/strata-fleet/strata/internal/render"
)

func newChartCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "chart",
		Short: "The built-in templates chart (used when the repository has no argocd-apps/)",
	}
	cmd.AddCommand(&cobra.Command{
		Use:         "show",
		Annotations: map[string]string{reportAnnotation: "yes"},
		Short:       "Print every file of the built-in templates chart, each under a '# file: NAME' line",
		Long: "Print every file of the built-in templates chart, each under a '# file: NAME' line.\n" +
			"docs/chart.md lists the item keys it understands; copy it to argocd-apps/ to change it.",
		Example: `  strata chart show`,
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			files, err := render.BuiltinChartFiles()
			if err != nil {
				return err
			}
			for _, f := range files {
				fmt.Fprintf(g.stdout, "# file: %s\n%s", f.Path, f.Data)
				if len(f.Data) > 0 && f.Data[len(f.Data)-1] != '\n' {
					fmt.Fprintln(g.stdout)
				}
			}
			return nil
		},
	})
	return cmd
}
