// Command genfleet writes a synthetic fleet repository (seed 003's layout)
// for benchmarks: by default SPEC §9's bench fleet of 1,000 targets and 20
// components.
//
//	go run ./hack/genfleet -out /tmp/fleet
//	go run ./hack/genfleet -out /tmp/tiny -envs 2 -sectors 2 -regions 2 -components 3
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/strata-fleet/strata/internal/testing/benchfleet"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	s := benchfleet.DefaultSpec()
	fl := flag.NewFlagSet("genfleet", flag.ContinueOnError)
	fl.SetOutput(stderr)
	out := fl.String("out", "", "directory to write the fleet repository into (its config/ must not exist)")
	fl.IntVar(&s.Environments, "envs", s.Environments, "environments")
	fl.IntVar(&s.Sectors, "sectors", s.Sectors, "sectors per environment")
	fl.IntVar(&s.Regions, "regions", s.Regions, "regions per sector")
	fl.IntVar(&s.Components, "components", s.Components, "components")
	fl.Uint64Var(&s.Seed, "seed", s.Seed, "random seed; the same flags always write the same bytes")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if *out == "" || fl.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: genfleet -out DIR [-envs N -sectors N -regions N -components N -seed N]")
		return 2
	}
	if err := benchfleet.Write(*out, s); err != nil {
		fmt.Fprintln(stderr, "genfleet:", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s: %d targets, %d components (%d files once rendered)\n",
		*out, s.Targets(), s.Components, s.RenderedFiles())
	return 0
}
