#!/usr/bin/env bash
# soak.sh runs TestSoak (internal/testing/benchfleet/argosim/soak_test.go): the
# built strata left to a week of simulated pushes (patches from three
# clones, failing checks, Degraded Applications, fixes, freezes, force-pushes
# of main) with a `rollout --watch --on-failure revert` runner and CI's
# `rollout --all --once --on-failure revert` beside it, argosim playing
# Argo CD on a real kube-apiserver; every invariant of issue 36 checked
# after each event. It prints the seed, the figures (steps, patches,
# runtime) and every violation found.
#
#   hack/soak.sh [EVENTS] [SEED]   (default 60 events, a new seed)
#
# The same SEED replays the same events (the timing of the runner's own
# work still varies). The runner's output and each CI run's go to
# STRATA_SOAK_LOGS (a new directory by default). Not part of make test:
# minutes long.
set -euo pipefail
cd "$(dirname "$0")/.."
export STRATA_SOAK_EVENTS="${1:-60}"
if [ -n "${2:-}" ]; then
	export STRATA_SOAK_SEED="$2"
fi
bin="$(mktemp -d)/strata"
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./cmd/strata
export STRATA_SOAK_STRATA="$bin"
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	export TMPDIR=/dev/shm
fi
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; at $(git rev-parse --short HEAD)"
start=$(date +%s)
code=0
export STRATA_SOAK_LOGS="${STRATA_SOAK_LOGS:-$(mktemp -d)}"
echo "the runner's and CI's output: $STRATA_SOAK_LOGS"
go test -count=1 -run '^TestSoak$' -v -timeout 90m ./internal/testing/benchfleet/argosim || code=$?
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg); $(( $(date +%s) - start )) s"
exit "$code"
