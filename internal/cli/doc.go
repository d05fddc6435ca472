// Package cli is strata's command line: one cobra command per file, each an
// options struct with Complete/Validate/Run over the library packages. It
// parses flags, finds the repository, calls the library and prints the data
// it returns (text on a terminal, JSON with -o json). Errors are printed in
// one place, Main.
package cli
