// Command strata runs a fleet of Kubernetes clusters with Argo CD from one Git
// repository. See internal/cli for the commands.
//
// STRATA_CPUPROFILE=FILE writes a CPU profile of the run to FILE, for
// `go tool pprof` (CONTRIBUTING.md, "Profiling").
package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/strata-fleet/strata/internal/cli"
)

func main() {
	stop := profile(os.Getenv("STRATA_CPUPROFILE"))
	code := cli.Main(os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// profile starts a CPU profile into file, when it is set, and returns what
// stops it.
func profile(file string) (stop func()) {
	if file == "" {
		return func() {}
	}
	f, err := os.Create(file)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "strata: STRATA_CPUPROFILE: %v\n", err)
		os.Exit(2)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "strata: STRATA_CPUPROFILE: %v\n", err)
		}
	}
}
