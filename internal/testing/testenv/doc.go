// Package testenv runs a real Kubernetes control plane on 127.0.0.1 for tests:
// etcd, kube-apiserver and, on request, kube-controller-manager's
// garbage-collector and namespace controllers (kube-controllers), so that
// deletions complete.
//
// Where the pieces come from:
//   - kube-apiserver and kube-controllers (hack/kube-controllers/main.go, the
//     two controllers without the rest of kube-controller-manager) are built
//     from the k8s.io/kubernetes Go module at [KubeVersion] by hack/build-kube.sh into
//     ${STRATA_CACHE:-$HOME/.cache/strata}/kube/<version>/bin (outside the
//     repository); STRATA_KUBE_BIN names another directory that holds them;
//   - etcd is built from the go.etcd.io/etcd/server/v3 Go module at
//     [EtcdVersion] by hack/build-etcd.sh into
//     ${STRATA_CACHE:-$HOME/.cache/strata}/etcd/<version>/etcd, or is the
//     binary STRATA_ETCD names; never the etcd on PATH: on an older etcd
//     (Debian's 3.4) the API server reads every consistent list from etcd
//     instead of its watch cache, several times slower for large lists;
//   - the Argo CD CRDs are read from the github.com/argoproj/argo-cd/v3 module
//     at [ArgoCDVersion], downloaded into the Go module cache with
//     `go mod download` (never a requirement of strata's go.mod), or from the
//     directory STRATA_ARGOCD_CRDS names.
//
// What it gives a test: [StartAPIServer] returns an [APIServer] with a
// *rest.Config (a bearer token whose user is in system:masters, and the CA of
// the server's self-generated serving certificate) and a kubeconfig file for
// CLI tests. [InstallArgoCDCRDs] applies the Argo CD CRDs server-side and waits
// until they are established. [ReadConsistentReads] reads from the server's
// metrics whether it served consistent lists from its watch cache (it does
// on etcd [EtcdVersion]; a test checks). Everything runs in the test's temporary
// directories on free loopback ports and is stopped by t.Cleanup, process group
// by process group, so no process outlives the test, even a test binary that is
// killed (the children get SIGKILL when it dies).
//
// Without the binaries a test fails with a message naming the script that
// builds them;
// under `go test -short` it is skipped instead. The package supports Linux only
// and skips elsewhere.
package testenv
