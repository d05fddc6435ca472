// Package benchfleet writes synthetic fleet repositories for benchmarks and
// tests.
//
// A generated fleet is laid out as seed 003 describes, so that both strata
// and the reference generator (patjlm/gcp-hcp-apps, hack/generate.py) read
// it unchanged: config/config.yaml (three dimensions, a sequence with gates,
// one cluster type "management-cluster"), config/management-cluster/
// defaults.yaml, and one directory per component with values.yaml,
// metadata.yaml and level directories holding override.yaml and
// patch-NNN.yaml files.
//
// The shape comes from a Spec. DefaultSpec is SPEC §9's bench fleet:
// 4 environments x 10 sectors x 25 regions = 1,000 targets and 20 components,
// each rendering one resource, so about 22,000 files once rendered. Every
// component has override.yaml at about half the environments, a fifth of the
// sectors and a twentieth of the regions (at least one of each, so tiny
// fleets exercise every level); about a third of the components have a
// rollout in progress: patch files at the environment and sector levels in
// walk order, as promotion leaves them, and sometimes a newer patch just
// started in the first region.
//
// The content is meant to look like a real fleet: Helm chart sources with
// valuesObject blocks of a few dozen lines, comments, sync options,
// ignoreDifferences, and one or two ApplicationSet components whose values
// use {{ .Values.cluster.region }} (resolved by the second template pass) and
// escaped {{`{{.name}}`}} expressions (kept for Argo CD). The YAML written
// stays within what PyYAML, Helm's engine and strata all read the same way:
// no yes/no booleans, no floats, no nulls, no anchors, integers well below
// 1e6, strings that could be mistaken for other types quoted.
//
// Output is deterministic: one Spec (including its Seed) always yields
// byte-identical files. Randomness comes from math/rand/v2 PCG streams keyed
// by the seed and the component's position, so components do not shift each
// other's content.
//
// Files returns the repository in memory (for fstest.MapFS fixtures); Write
// puts it on disk. hack/genfleet is the command-line front end.
package benchfleet
