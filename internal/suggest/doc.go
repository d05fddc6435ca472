// Package suggest finds the likely intended name when a user mistypes one:
// the edit distance behind every "did you mean" of strata's errors. Callers
// (fleet, status, validate) pass the names that exist and their threshold.
package suggest
