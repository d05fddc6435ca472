// Package render turns a loaded fleet into the files of its rendered/ tree.
//
// For each cluster type and target it takes the target's merged values (from
// package fleet) and evaluates the templates chart with Helm's own engine, in
// the reference generator's two passes: pass 1 renders the chart (the
// repository's argocd-apps/, or the built-in one) with the values; pass 2
// renders pass 1's output again as a template with the same values, so that
// expressions written in values ("{{ .Values.cluster.region }}") resolve now
// while escaped ones ("{{`{{ .name }}`}}") survive for Argo CD.
//
// A value's reference to a key the values do not have renders empty, as in
// the reference, unless config.yaml says render.missingKeys: error (or
// Renderer.StrictKeys, for validate): then it is an error at the value's
// file and line, found in pass 2 (missing.go) and in the texts a chart runs
// tpl on in pass 1 (stricttpl.go). A reference guarded as Helm users write
// optional values ({{ .Values.x | default "y" }}, hasKey, if/with, empty,
// coalesce, required) is no error: a static reading of the template
// (guarded.go, which strata validate uses too) tells it from one that
// renders empty, and such a target renders as without strict keys.
//
// The output of a target is Chart.yaml, values.yaml (the merged values,
// verbatim) and templates/<metadata.name>.yaml per resource, as bytes; with
// config.yaml's layout.manifests, that chart rendered once more as Argo
// CD's repo server renders it, written as plain manifests (plain.go). It
// goes to package output, which decides what to write; nothing here touches
// the disk. Targets render in parallel; the result does not depend on the
// order or the number of workers. Each target renders under config.yaml's
// render.limits (limits.go).
package render
