// Package promenv runs a real Prometheus and a real Alertmanager on
// 127.0.0.1 for tests, as package testenv runs a kube-apiserver: the
// tests of rollout.stopWhen and of Prometheus checks (packages alert,
// rollout and e2e) read them through strata's own clients.
//
// Where the binaries come from: hack/build-prom.sh takes Prometheus
// ([PrometheusVersion]) from Debian's package and builds Alertmanager
// ([AlertmanagerVersion]) from its Go module into
// ${STRATA_CACHE:-$HOME/.cache/strata}/prometheus/<versions>/bin, outside
// the repository; STRATA_PROM_BIN names another directory holding them.
// hack/test-deps.sh runs the script, so `make test` has them.
//
// What a test gets: [StartAlertmanager] (no receivers, no cluster; alerts
// are posted through its API v2 with [Alertmanager.Fire] and silenced
// with [Alertmanager.Silence]) and [StartPrometheus] (scraping the given
// targets every second; [Prometheus.WaitFor] waits until a query returns
// samples). Each runs in the test's temporary directory on a free
// loopback port, is ready once GET /-/ready answers 200, and is stopped by
// t.Cleanup through testenv's process groups.
//
// Under `go test -short` the tests that need them are skipped; without the
// binaries they are skipped too, with a message naming hack/build-prom.sh
// (a machine without them runs every other test).
package promenv
