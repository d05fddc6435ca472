// Command strata runs a fleet of Kubernetes clusters with Argo CD from one Git
// repository. See internal/cli for the commands.
package main

import (
	"os"

	"github.com/strata-fleet/strata/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr)) }
