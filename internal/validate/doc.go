// Package validate checks a fleet's rendered Argo CD resources before Argo CD
// sees them: strata validate.
//
// [Check] loads the repository, renders every target in memory (nothing is
// written) and hands the outputs to [Validate], which runs every check and
// returns all their findings together in a [Report]: data that only the CLI
// prints. A [Finding] names the rendered file (or patch), line and field
// path, what is wrong and, when the field comes from the configuration, the
// file, line and column that set it (provenance.go).
//
// The checks, one file each:
//   - schema.go: Argo CD's CRD schemas (embedded by package schemas,
//     written by validate/gen), with the Kubernetes API server's own code;
//   - sources.go: sources of this repository built as Argo CD would
//     (package hydrate), offline;
//   - conflicts.go, shadows.go: patches that set one field, patch fields a
//     more specific level sets again;
//   - collisions.go: names two clusters give resources in one Argo CD;
//   - projects.go: roots in a project their Argo CD does not get;
//   - references.go: value references to missing keys, unless guarded;
//   - policy.go: mistakes the API server accepts and Argo CD reveals only
//     at sync.
//
// docs/validate.md describes each check in full.
package validate
