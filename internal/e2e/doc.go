// Package e2e proves strata against real Argo CD, offline, on one machine:
// strata's output is only right if Argo CD accepts it and does what the user
// meant.
//
// [Start] runs a fleet on loopback, every piece a local process stopped by
// PID when the test ends: hub and spoke kube-apiservers (package testenv)
// with their controllers, a Git server serving a copy of testdata/fleet
// (or a repository the scenario writes itself: an imported one),
// and Argo CD's redis, repo-server, application-controller and
// applicationset-controller on each cluster that runs one. The strata
// command line runs in-process (cli.Main, [Env.Strata]); [Env.Commit]
// commits and pushes a change; [Env.Converge] waits until every
// Application is synced and healthy at the commit its revision names;
// [Env.StatusLive] and [Env.Kubeconfig] read the live state as a user
// would.
//
// The binaries are built by hack/build-kube.sh, hack/build-etcd.sh and
// hack/build-argocd.sh (ArgoCDVersion, HelmVersion); nothing is downloaded
// at test time. The scenarios (TestE2E*) are skipped under -short, run
// one at a time and support Linux only.
//
// BenchmarkE2EDelivery (hack/bench-delivery-argocd.sh, never run by make
// test) is the delivery benchmark against this Argo CD.
//
// docs/e2e.md describes the harness, where its pieces come from and every
// scenario, in full.
package e2e
