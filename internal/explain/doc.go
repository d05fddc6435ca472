// Package explain answers "where does this value come from?": for a target,
// a component and a field path, the effective value after the merge and the
// chain of files and lines that set it or overrode it, in merge order (most
// specific last).
//
// The chain follows the layering of package fleet: the cluster type's
// defaults.yaml (its <section>.default, applied under every item of the
// section), the component's values.yaml, then for each level directory from
// the first dimension down to the target, override.yaml and each
// patch-*.yaml in file-name order. Each file that sets the field, a part of
// it (when it is a mapping) or a parent that replaces it is a step; a step
// is effective when some of what it sets survives in the merged value, which
// every leaf tells by its position (values.Pos).
//
// Data comes from a loaded fleet; the result is data (JSON-able) that the
// CLI prints and the web UI shows. [Annotate] lays out any value as YAML
// lines with the file:line of each leaf.
package explain
