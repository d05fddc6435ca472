// Package deploytest is test code only: it checks the Helm chart of the
// rollout runner (deploy/charts/strata). The chart is rendered with Helm's
// engine and linted with Helm's library (as helm lint --strict) for the
// value sets of testdata/ (golden files refreshed with -update); its objects
// are applied to a real kube-apiserver (internal/testing/testenv), and the runner's
// calls are made with a token of the chart's ServiceAccount (TokenRequest):
// the Argo CD reads, watch and refresh and the Lease's leader election work,
// and each step beyond the chart's RBAC is forbidden. Render, Manifest,
// Apply and RunnerArgs are shared with the image's test (hack/ociimage),
// which runs the chart's runner from the image.
package deploytest
