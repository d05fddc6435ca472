// Package importer turns a repository that runs its fleet with Argo CD some
// other way into a strata fleet: config/ files that strata render makes the
// same Argo CD objects from.
//
// Each format (one file each: applications.go, ...) reads the repository
// through an fs.FS into a Source: the targets, the Argo CD objects its own
// tooling gives each of them (kustomize's library for a kustomization,
// Helm's engine for a chart, the ApplicationSet controller's rules for the
// Applications an ApplicationSet makes per cluster Secret: appset.go; the
// Secrets themselves as the repository's chart writes them, ekssecret.go,
// or as given, eksgiven.go) and what it could not carry over. Build turns
// a Source into files: one component per object name, the values every
// target shares in values.yaml and the rest in override.yaml files at the
// highest node of the sequence they hold for. Verify renders those files
// with strata's renderer and Argo CD's Helm render of rendered/ and
// compares every object with the source's, so that an import that would
// change what a cluster runs is an error, not a surprise. Nothing here
// writes: action.Import stages and renames the files into place.
package importer
