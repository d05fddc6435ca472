// Package hydrate builds the Kubernetes objects an Argo CD source deploys,
// offline, as Argo CD's repo server would: a Helm chart with Helm's engine
// (`helm template` with the source's release, value files, values and
// parameters), a kustomization with the kustomize library (Argo CD's
// default options), a directory of manifests as they are. It reads the
// fleet repository through an fs.FS, and remote Helm charts only from
// Helm's local cache; it never uses the network: what it cannot build
// offline (dependencies not vendored, remote kustomize bases, plugins, a
// chart not in the cache) is a reason (Build.Skip), never silence.
//
// strata validate uses it to check that local sources build; strata diff
// --hydrate to show what a change does to the objects the clusters get.
package hydrate
