// Package testenv runs a real Kubernetes control plane on 127.0.0.1 for tests:
// etcd, kube-apiserver and, on request, a kube-controller-manager with the
// garbage-collector and namespace controllers, so that deletions complete.
//
// Where the pieces come from:
//   - kube-apiserver and kube-controller-manager are built from the
//     k8s.io/kubernetes Go module at [KubeVersion] by hack/build-kube.sh into
//     ${STRATA_CACHE:-$HOME/.cache/strata}/kube/<version>/bin (outside the
//     repository); STRATA_KUBE_BIN names another directory that holds them;
//   - etcd is the Debian package etcd-server (the etcd on PATH, or STRATA_ETCD);
//   - the Argo CD CRDs are read from the github.com/argoproj/argo-cd/v3 module
//     at [ArgoCDVersion], downloaded into the Go module cache with
//     `go mod download` (never a requirement of strata's go.mod), or from the
//     directory STRATA_ARGOCD_CRDS names.
//
// What it gives a test: [StartAPIServer] returns an [APIServer] with a
// *rest.Config (a bearer token whose user is in system:masters, and the CA of
// the server's self-generated serving certificate) and a kubeconfig file for
// CLI tests. [InstallArgoCDCRDs] applies the Argo CD CRDs server-side and waits
// until they are established. Everything runs in the test's temporary
// directories on free loopback ports and is stopped by t.Cleanup, process group
// by process group, so no process outlives the test, even a test binary that is
// killed (the children get SIGKILL when it dies).
//
// Without the binaries a test fails with a message naming hack/build-kube.sh;
// under `go test -short` it is skipped instead. The package supports Linux only
// and skips elsewhere.
package testenv
