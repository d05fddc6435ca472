// Package values owns the value tree that strata merges: YAML documents decoded
// with the position of every node (provenance), the merge that layers them, and
// the encoder that writes them back as YAML.
//
// Data comes from the fleet loader (config files as bytes) and goes to the
// renderer (as Helm values and as the rendered values.yaml), to error messages,
// and to explain/status, which read each leaf's Pos.
//
// # Decoding
//
// Block YAML as encoders and templates write it (mappings and lists by
// indentation, plain, quoted and literal scalars) is decoded directly
// (blockdecode.go); everything else, errors included, goes through yaml.v3's
// node tree. Both ways give the same values, positions and scalar styles
// (FuzzDecodeBlockAsYAMLv3).
//
// # Scalars
//
// Plain scalars are resolved with YAML 1.1 rules, the rules of PyYAML (the
// reference generator) and of the YAML library Helm and Argo CD read values
// with: yes/no/on/off are booleans, 0755 is octal, 1_000 is an integer.
// Quoted scalars and scalars tagged !!str are strings.
//
// # Merge rules
//
// Merge(base, over) returns a new tree; neither input is modified and subtrees
// are shared, so trees must be treated as immutable once decoded.
//
//   - When both sides are mappings they merge key by key, recursively.
//   - Otherwise the override replaces the base: lists replace lists, scalars
//     replace anything, a mapping replaces a scalar, and null replaces too
//     (the key is kept with a null value).
//   - Keys keep the order in which they first appear: base keys first, in base
//     order, then keys new in the override, in override order.
//   - Every node keeps the Pos of the file and line that set it, so a merged
//     leaf tells which layer won.
//
// MergeAll(base, layers...) is Merge of each layer in turn, made in one pass
// (a target's values: one layer per component, fleet.TargetValues).
package values
