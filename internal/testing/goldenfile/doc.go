// Package goldenfile compares test output with golden files, for tests only.
// Each test package keeps its own -update flag (so that `make golden` finds
// the packages that have golden files) and passes its value to Check.
package goldenfile
