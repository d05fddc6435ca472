#!/usr/bin/env bash
# bench-delivery-argocd.sh runs BenchmarkE2EDelivery (internal/e2e): the
# delivery benchmark of hack/bench-delivery.sh against real Argo CD. The
# e2e hub with its Argo CD, CLUSTERS spokes registered as aliases of
# APISERVERS spoke API servers, PATCHES components on each, one patch per
# component rolled out at once by the built binary (`strata rollout --all`)
# through dev, staging in waves [10%, 100%] and prod in waves [10%, 50%,
# 100%], soak 0. It prints the load average before and after, and the
# benchmark's log: the rollout's time, the push gaps (p50/p95/max), Argo
# CD's part of each step, strata's peak RSS, its list/watch calls, and the
# CPU of each program during the rollout.
#
#   hack/bench-delivery-argocd.sh [CLUSTERS] [PATCHES] [APISERVERS]   (default 100 10 2)
#
# Needs the e2e tier's binaries (hack/build-argocd.sh, hack/build-kube.sh).
# BENCH_FLAGS adds go test flags. Not part of make test: many minutes long.
set -euo pipefail
cd "$(dirname "$0")/.."
export STRATA_BENCH_CLUSTERS="${1:-100}" STRATA_BENCH_PATCHES="${2:-10}" STRATA_BENCH_APISERVERS="${3:-2}"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; $(git rev-parse --short HEAD)"
# -v: a benchmark's log is cut to a few lines without it.
go test -count=1 -v -run '^$' -bench BenchmarkE2EDelivery -benchtime 1x -timeout 90m ${BENCH_FLAGS:-} ./internal/e2e
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
