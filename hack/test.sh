#!/usr/bin/env bash
# test.sh runs every test, as `make test` does once hack/test-deps.sh has
# put the tools in place: every package under the race detector but the
# end-to-end tier (internal/e2e), which runs beside them without it.
#
# Why internal/e2e runs without -race: its concurrency is in the processes
# it starts (Argo CD's controllers, API servers, etcd, redis, git), which
# the race detector does not see. strata's own concurrency (the rollout
# engine and its watch, the runner, the web UI) is raced by the tests of
# its packages against the same real API server, and by the CLI's
# scenarios, which run the race-built test binary as strata. Without it
# the scenarios' in-process strata leaves more of the two CPUs to the
# Argo CD it waits for.
#
# Why beside: most of a scenario is waiting for Argo CD to reconcile, so
# the other packages' tests fill the CPUs meanwhile, as they did when
# `go test -race ./...` ran internal/e2e as one of its two packages at a
# time. Its output is printed when it ends.
set -euo pipefail
cd "$(dirname "$0")/.."

e2e_log="$(mktemp)"
trap 'rm -f "${e2e_log}"' EXIT
go test -count=1 -timeout 45m ./internal/e2e >"${e2e_log}" 2>&1 &
e2e=$!

rc=0
mapfile -t pkgs < <(go list ./... | grep -v '/internal/e2e$')
[[ ${#pkgs[@]} -gt 1 ]] || { echo "test.sh: go list ./... found no packages" >&2; exit 1; }
go test -race -count=1 -timeout 45m "${pkgs[@]}" || rc=1
wait "${e2e}" || rc=1
cat "${e2e_log}"

# The race detector's shadow memory is in a process's peak RSS: the
# memory limit's test runs without it.
go test -count=1 -run '^TestMemoryLimitBoundsTheProcess$' ./internal/render || rc=1
exit "${rc}"
