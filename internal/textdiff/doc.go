// Package textdiff writes the unified diff of two versions of a text, as
// git diff prints it: for the rendered files strata diff compares and the
// objects diff --hydrate and diff --live compare. It owns no file and
// reads nothing: the texts come from its callers.
package textdiff
