#!/usr/bin/env bash
# bench-delivery.sh runs BenchmarkDelivery (internal/benchfleet/argosim):
# CLUSTERS spokes of one hub on one real kube-apiserver, argosim playing the
# hub's Argo CD, PATCHES patches of different components rolled out at once
# (rollout.RunAll, as `strata rollout --all`) through dev, staging in waves
# [10%, 100%] and prod in waves [10%, 50%, 100%], soak 0. It prints the
# load average before and after, and the benchmark's log: the rollout's
# time, the push gaps (p50/p95/max), peak RSS and strata's list/watch calls.
#
#   hack/bench-delivery.sh [CLUSTERS] [PATCHES] [DELAY_MS]   (default 200 20 1000)
#
# BENCH_FLAGS adds go test flags (e.g. "-cpuprofile cpu.prof").
# Not part of make test: minutes long, skipped under -short.
set -euo pipefail
cd "$(dirname "$0")/.."
export STRATA_BENCH_CLUSTERS="${1:-200}" STRATA_BENCH_PATCHES="${2:-20}" STRATA_BENCH_DELAY_MS="${3:-1000}"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs"
go test -count=1 -run '^$' -bench BenchmarkDelivery -benchtime 1x -timeout 60m ${BENCH_FLAGS:-} ./internal/benchfleet/argosim
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
