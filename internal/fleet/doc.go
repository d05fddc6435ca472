// Package fleet owns the model of a fleet repository and its loader.
//
// A fleet repository (seed 003's layout) holds config/config.yaml, which
// declares the dimensions, the sequence (the hierarchy of nodes in rollout
// order, with gates and revision pins) and the cluster types; then, per
// cluster type, config/<type>/defaults.yaml and one directory per component
// with values.yaml and level directories that mirror the sequence and hold
// override.yaml and patch-*.yaml files. config.yaml's charts: adds the
// components found in chart directories, and global: true the layer of
// config/global/ under every cluster type (charts.go).
//
// Load reads all of it from an fs.FS rooted at the repository and checks its
// shape: unknown keys, unsafe names, level directories that name no node of
// the sequence, stray files, symlinks that leave the repository. File contents
// are read eagerly (so that a fingerprint of the inputs is cheap) and decoded
// lazily (so that a render with nothing to do decodes nothing). The result
// goes to render, promote, status and the other commands; nothing here writes.
package fleet
