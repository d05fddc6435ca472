// Package e2e proves strata against real Argo CD, offline, on one machine:
// strata's output is only right if Argo CD accepts it and does what the user
// meant.
//
// The harness ([Start]) runs a fleet on loopback, every piece a local process
// stopped by PID when the test ends:
//
//   - a hub and spoke kube-apiservers with their etcd (package testenv),
//     each with a kube-controller-manager (garbage collector and namespace
//     controllers), so that deletions complete: Argo CD prunes in the
//     foreground, with a finalizer only the garbage collector removes; the
//     hub, and a spoke that runs its own Argo CD (distributed model), have
//     Argo CD's CRDs;
//   - a Git server (git http-backend behind net/http/cgi) serving the fleet
//     repository: a copy of testdata/fleet, seed 003's layout with local
//     Helm charts, so that nothing is fetched from a chart repository;
//   - redis and Argo CD's repo-server, application-controller and
//     applicationset-controller (the multi-call argocd binary), on the hub
//     and on each spoke that runs its own, configured as
//     Argo CD's installation manifests would configure them, with the
//     data paths a container image has given by environment and the
//     in-cluster destination faked to be the hub.
//
// Where the pieces come from: kube-apiserver and kube-controller-manager are
// built by hack/build-kube.sh; argocd (from the github.com/argoproj/argo-cd/v3
// Go module, ArgoCDVersion) and helm (HelmVersion, the major version Argo CD
// v3.5 shells out to) by hack/build-argocd.sh into
// ${STRATA_CACHE:-$HOME/.cache/strata}/argocd/<version>/bin, which also
// installs Debian's redis-server; etcd and git are Debian packages. Nothing is
// downloaded at test time.
//
// The strata command line runs in-process (cli.Main) on the fleet repository:
// render, validate, promote, pin and bootstrap --apply, the last against the
// hub, which registers the hub itself (distributed model: its own root
// Application) and the spokes (central model: cluster secrets with their
// credentials, and the hub's root ApplicationSet). Each change is committed
// and pushed; the tests then ask for a hard refresh and wait ([Env.Converge])
// until every Application is synced and healthy at the commit its revision
// names and the spokes hold exactly the ConfigMaps expected.
//
// The scenarios (TestE2E*): both models and the double-templated values;
// roots in projects other than default (the AppProjects applied by
// bootstrap before the roots that name them);
// a progressive rollout with strata promote; the same with strata rollout,
// which commits, pushes and waits for Argo CD itself (killed mid-wait and
// resumed, stopped at a manual gate, approved) and its failures (a failing
// check, and a patch the API server rejects at sync, each reverted with
// --on-failure revert; a PostSync hook Job that fails while Argo CD says
// Synced and Healthy, which fails the step and status --live shows
// failed); strata status --live against the hub's Argo CD
// (central model) and a spoke's own (distributed model): healthy, an
// unreachable Argo CD, drift made by hand, a volume claim lost (degraded),
// a rejected sync, each as the
// Application objects say ([Env.StatusLive], [Env.Kubeconfig]); pins with
// strata pin; that what strata validate rejects, the API server
// rejects too; continuous delivery in one fleet (TestE2EDelivery,
// delivery_test.go): a rollout whose Argo CD cannot be reached commits
// nothing (exit 5), rollout --all of two components' patches while others
// push (one push refused and replayed, through the Git remote's
// pre-receive hook), waves of [1, 100%] over a sector's regions, a freeze
// pushed from another clone during a soak (held, then unfrozen), and
// spokes whose admission policy refuses a version, within maxUnhealthy 1
// and beyond it; and stop-the-line against a real Prometheus, scraping the
// hub's application controller (its metrics address,
// ArgoCD.ControllerMetrics), and a real Alertmanager (package promenv): a
// rollout whose Prometheus check reads Argo CD's own metrics, and an alert
// fired during a soak that fails and reverts the step. They are skipped
// under -short; without the binaries they
// fail, naming hack/build-argocd.sh.
// They run one at a time: each starts its own fleet. The package supports
// Linux only.
//
// BenchmarkE2EDelivery (bench_delivery_test.go, run by
// hack/bench-delivery-argocd.sh, never by make test) is the simulated
// delivery benchmark's run against this Argo CD: about a hundred spokes
// registered as aliases of a few spoke API servers (a loopback relay per
// alias: Argo CD keys a cluster by its server URL), ten components each,
// and `strata rollout --all` as a child process, timed against the
// Applications' states, the remote's pushes and the CPU of each program.
package e2e
