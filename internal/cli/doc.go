// Package cli is strata's command line: one cobra command per file, each an
// options struct with Complete/Validate/Run over the library packages. It
// parses flags, opens the repository through one preamble (repo.go's open,
// over action.OpenWith: journal warnings, the lock the command needs),
// calls the library and prints the data it returns: text, or the same report as data with -o json or -o yaml,
// through one writer (output.go), which prints every empty list as []
// (output_empty.go). Flags that several commands share have one type and
// help each (clustercontext.go, live.go); a list of many names is cut in
// one way (group.go). Errors are printed in one place, Main,
// which turns them into the documented exit codes (exit.go,
// docs/exit-codes.md).
package cli
