// Package cli is strata's command line: one cobra command per file, each an
// options struct over the library packages. It parses flags, opens the
// repository through one preamble (repo.go, over action.OpenWith), calls
// the library and prints what it returns: text, or the report as data
// through one writer (output.go). Shared flags have one type each
// (clustercontext.go, live.go); errors are printed in one place, Main,
// with the exit codes of exit.go (docs/exit-codes.md).
package cli
