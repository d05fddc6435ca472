package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/strata-fleet/strata/internal/output"
	"github.com/strata-fleet/strata/internal/scaffold"
)

func newInitCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Start a new fleet repository with a small working example",
		Long: `Init writes a small fleet repository into DIR (default: the current directory):
config/config.yaml with two dimensions, one cluster type with its defaults, and
one component with a production override; then it renders it.`,
		Example: "  strata init my-fleet\n  cd my-fleet && strata render --check",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			written, err := scaffold.Write(dir)
			if err != nil {
				return err
			}
			root, err := os.OpenRoot(dir)
			if err != nil {
				return err
			}
			defer root.Close()
			res, err := output.Run(output.Options{Root: dir, FS: root.FS()})
			if err != nil {
				return fmt.Errorf("rendering the new repository: %w", err)
			}
			fmt.Fprintf(g.stdout, "wrote %d files and rendered %d targets into %s\n", len(written), res.Targets, dir)
			fmt.Fprintf(g.stdout, "next: edit config/, then run strata render (in %s)\n", dir)
			return nil
		},
	}
	return cmd
}
