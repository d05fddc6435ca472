package cli

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version is set at build time with -ldflags "-X .../internal/cli.Version=v1.2.3".
var Version = ""

func newVersionCmd(g *globals) *cobra.Command {
	var out outputFormat
	cmd := &cobra.Command{
		Use:     "version",
		Short:   "Print strata's version",
		Example: "  strata version\n  strata version -o json",
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := out.validate(); err != nil {
				return err
			}
			v := version()
			if out.json() {
				return writeJSON(g.stdout, map[string]string{"version": v})
			}
			fmt.Fprintf(g.stdout, "strata %s\n", v)
			return nil
		},
	}
	cmd.Flags().StringVarP((*string)(&out), "output", "o", "", "output format: text or json")
	return cmd
}

func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
