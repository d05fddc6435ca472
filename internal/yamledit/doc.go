// Package yamledit edits YAML text in place, so that a file a person wrote
// keeps its comments, key order, quoting and layout when strata changes a
// value in it.
//
// A [Doc] is the source text and its yaml.v3 node tree, which gives the line
// and column where each node starts. Callers locate the node to change,
// compute the byte range to replace (a scalar's token, a flow collection, a
// range of whole lines) with the helpers here, and apply the [Edit]s
// together. Callers check the result by decoding it: an edit the helpers
// cannot make exactly is an error, never a guess.
//
// Package pin moves a revision pin in config/config.yaml with it. (Package
// promote's splicer, which folds a patch into values.yaml, has the same
// primitives of its own in splice.go; they can move here.)
package yamledit
