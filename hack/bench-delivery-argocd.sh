#!/usr/bin/env bash
# bench-delivery-argocd.sh runs BenchmarkE2EDelivery (internal/e2e): the
# delivery benchmark of hack/bench-delivery.sh against real Argo CD. The
# e2e hub with its Argo CD, CLUSTERS spokes registered as aliases of
# APISERVERS spoke API servers, PATCHES components on each, one patch per
# component rolled out at once by the built binary (`strata rollout --all`)
# through dev, staging in waves [10%, 100%] and prod in waves [10%, 50%,
# 100%], soak 0. It prints the load average before and after, and the
# benchmark's log: the rollout's time, the push gaps (p50/p95/max), Argo
# CD's part of each step, strata's peak RSS, its list/watch calls, the
# CPU of each program during the rollout, and what the application
# controller did in the deploy and in the rollout (from its metrics).
#
#   hack/bench-delivery-argocd.sh [CLUSTERS] [PATCHES] [APISERVERS]   (default 100 10 2)
#
# The hub's Argo CD is sized for the fleet as Argo CD's high-availability
# guide does (bench_argocd_test.go): resource.inclusions to the kinds the
# fleet deploys, 50 status and 25 operation processors per 1,000
# Applications (at least 20 and 10), and the Applications sync with
# Validate=false. STRATA_BENCH_ARGOCD=e2e runs the e2e tier's sizing
# instead (4 and 4 processors, every type cached, kubectl validation on);
# STRATA_BENCH_PROCESSORS=STATUS,OPERATION, STRATA_BENCH_SYNC_OPTIONS and
# STRATA_BENCH_CONTROLLER_ENV (NAME=VALUE ...) change one setting.
# STRATA_BENCH_OUT=DIR keeps the controller's metrics before and after each
# phase and CPU profiles of the controller and the repo-server over each
# phase's first STRATA_BENCH_PROFILE seconds (default 120).
#
# Needs the e2e tier's binaries (hack/build-argocd.sh, hack/build-kube.sh).
# BENCH_FLAGS adds go test flags. Not part of make test: many minutes long.
set -euo pipefail
cd "$(dirname "$0")/.."
export STRATA_BENCH_CLUSTERS="${1:-100}" STRATA_BENCH_PATCHES="${2:-10}" STRATA_BENCH_APISERVERS="${3:-2}"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; $(git rev-parse --short HEAD)"
# -v: a benchmark's log is cut to a few lines without it.
go test -count=1 -v -run '^$' -bench BenchmarkE2EDelivery -benchtime 1x -timeout 120m ${BENCH_FLAGS:-} ./internal/e2e
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
