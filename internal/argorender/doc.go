// Package argorender renders a target's rendered/ directory as Argo CD
// does: the directory is a Helm chart (Chart.yaml, values.yaml,
// templates/), rendered with Helm's engine as the root Application's
// release, with an Application's helm.valuesObject over values.yaml; a
// directory of plain manifests (layout.manifests) is read as it is, as a
// directory source.
//
// Package render writes rendered/; this package reads it back the way the
// cluster will. Its users: bootstrap (the self-management Application and
// the projects a root names), live (the Applications a cluster should
// run, compared with those it runs) and diff --hydrate (the Applications
// of each side). [Read] loads a target's chart from a file system,
// [Render] renders it; nothing here prints or writes.
package argorender
