#!/usr/bin/env bash
# bench-delivery.sh runs BenchmarkDelivery (internal/testing/benchfleet/argosim):
# CLUSTERS spokes of one hub on one real kube-apiserver, argosim playing the
# hub's Argo CD, PATCHES patches of different components rolled out at once
# through dev, staging in waves [10%, 100%] and prod in waves [10%, 50%,
# 100%], soak 0. It prints the load average before and after, and the
# benchmark's log: the rollout's time, the push gaps (p50/p95/max), the
# API server's count of Application lists and watches, peak RSS.
#
#   hack/bench-delivery.sh [CLUSTERS] [PATCHES] [DELAY_MS]   (default 200 20 1000)
#
# By default the rollout is the built strata binary, `strata rollout --all`,
# run as a child: its own peak RSS and CPU time. INPROCESS=1 runs
# rollout.RunAll in the benchmark's process instead, which also times the
# repository lock's takes and holds and each git command.
# BENCH_FLAGS adds go test flags (e.g. "-cpuprofile cpu.prof", in process).
# STRATA_BENCH_WRITERS is how many writes argosim makes at once (32);
# STRATA_BENCH_SETUP_ONLY=1 stops after the setup (its phases timed).
# STRATA_BENCH_STOP_AFTER_S=N stops the rollout after N seconds (strata as
# a child gets SIGTERM) and reports what it did until then.
# STRATA_BENCH_HEAP_DIR=DIR records the rollout's memory in DIR every
# STRATA_BENCH_HEAP_EVERY_S seconds (180): its RSS in mem.txt and, in
# process, the heap in use and the collector's goal there too and a heap
# profile (heap-MMmSSs.pprof) each time.
# The benchmark's files (the fleet, its remote, etcd's data) go under
# BENCH_TMPDIR, by default /dev/shm (memory) where it exists: on this
# project's shared VMs a disk's file creation made rendering 101,000
# Applications take minutes (BENCHMARKS.md).
# Not part of make test: minutes long, skipped under -short.
set -euo pipefail
cd "$(dirname "$0")/.."
export STRATA_BENCH_CLUSTERS="${1:-200}" STRATA_BENCH_PATCHES="${2:-20}" STRATA_BENCH_DELAY_MS="${3:-1000}"
if [ -z "${INPROCESS:-}" ]; then
	bin="$(mktemp -d)/strata"
	go build -o "$bin" ./cmd/strata
	export STRATA_BENCH_STRATA="$bin"
fi
tmp="${BENCH_TMPDIR:-}"
if [ -z "$tmp" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
	tmp=/dev/shm
fi
if [ -n "$tmp" ]; then
	export TMPDIR="$tmp"
fi
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; files under ${TMPDIR:-/tmp}; at $(git rev-parse --short HEAD)"
go test -count=1 -run '^$' -bench BenchmarkDelivery -benchtime 1x -timeout 150m ${BENCH_FLAGS:-} ./internal/testing/benchfleet/argosim
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
