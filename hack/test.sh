#!/usr/bin/env bash
# test.sh runs every test, as `make test` does once hack/test-deps.sh has
# put the tools in place: every package under the race detector but the
# end-to-end tier (internal/e2e) and most of the CLI's scenarios, which run
# beside them without it.
#
# Why internal/e2e runs without -race: its concurrency is in the processes
# it starts (Argo CD's controllers, API servers, etcd, redis, git), which
# the race detector does not see. strata's own concurrency (the rollout
# engine and its watch, the runner, the web UI) is raced by the tests of
# its packages against the same real API server, and by the CLI's rollout
# and serve scenarios, which run the race-built test binary as strata. Without it
# the scenarios' in-process strata leaves more of the two CPUs to the
# Argo CD it waits for.
#
# Why beside: most of a scenario is waiting for Argo CD to reconcile, so
# the other packages' tests fill the CPUs meanwhile, as they did when
# `go test -race ./...` ran internal/e2e as one of its two packages at a
# time. Its output is printed when it ends.
#
# The CLI's scenarios (internal/cli's TestScripts) run the test binary as
# strata, once a command: under -race each run costs 3.5 times the CPU
# (BENCHMARKS.md, "A cold .ci/run"), and most scenarios run one command
# with no goroutine of strata's own beside it (render, promote, status...:
# their concurrent parts, render's workers among them, are raced in their
# own packages). The scenarios of the commands that run goroutines of
# their own (rollout: its watch, metrics server, webhook and lock; serve:
# the web UI) stay under -race; the others run without it, beside the
# race run as internal/e2e does. internal/cli's other tests are raced.
set -euo pipefail
cd "$(dirname "$0")/.."

# The CLI's scenarios that stay under the race detector.
raced_scenarios='^TestScripts$/^(rollout|serve)_'

e2e_log="$(mktemp)"
cli_log="$(mktemp)"
trap 'rm -f "${e2e_log}" "${cli_log}"' EXIT
go test -count=1 -timeout 45m ./internal/e2e >"${e2e_log}" 2>&1 &
e2e=$!
go test -count=1 -timeout 45m -run '^TestScripts$' -skip "${raced_scenarios}" ./internal/cli >"${cli_log}" 2>&1 &
cli=$!

rc=0
mapfile -t pkgs < <(go list ./... | grep -v '/internal/e2e$')
[[ ${#pkgs[@]} -gt 1 ]] || { echo "test.sh: go list ./... found no packages" >&2; exit 1; }
# TestScripts is internal/cli's alone: -skip leaves every other test.
others="$(grep -rl --include='*_test.go' '^func TestScripts(' . | grep -v '^\./internal/cli/' || true)"
[[ -z "${others}" ]] || { echo "test.sh: a TestScripts outside internal/cli (${others}) would run nowhere" >&2; exit 1; }
go test -race -count=1 -timeout 45m -skip '^TestScripts$' "${pkgs[@]}" || rc=1
go test -race -count=1 -timeout 45m -run "${raced_scenarios}" ./internal/cli || rc=1
wait "${cli}" || rc=1
cat "${cli_log}"
wait "${e2e}" || rc=1
cat "${e2e_log}"

# The race detector's shadow memory is in a process's peak RSS: the
# memory limit's test runs without it.
go test -count=1 -run '^TestMemoryLimitBoundsTheProcess$' ./internal/render || rc=1
exit "${rc}"
