#!/usr/bin/env bash
# bench-startup.sh measures what every strata command pays before it does
# anything: the wall time and peak RSS of `strata version`, and the package
# initialisation that GODEBUG=inittrace=1 reports (the sum of the clock times
# of its init lines), medians of RUNS runs.
#
#   hack/bench-startup.sh [RUNS]    (default 21)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=hack/lib.sh
source hack/lib.sh
runs="${1:-21}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
go build -o "$work/strata" ./cmd/strata

walls="" rss="" inits=""
for _ in $(seq "$runs"); do
	/usr/bin/time -f "%e %M" -o "$work/t" "$work/strata" version >/dev/null 2>&1
	read -r w m <"$work/t"
	walls+="$w"$'\n' rss+="$m"$'\n'
	inits+="$(GODEBUG=inittrace=1 "$work/strata" version 2>&1 >/dev/null | awk '/^init / {s += $5} END {printf "%.1f", s}')"$'\n'
done
echo "machine: $(nproc) cores; load average: $(cut -d' ' -f1-3 /proc/loadavg); binary: $(stat -c %s "$work/strata") bytes"
echo "strata version: wall median $(printf '%s' "$walls" | median) s, min $(printf '%s' "$walls" | sort -n | head -1) s"
echo "package init: median $(printf '%s' "$inits" | median) ms, min $(printf '%s' "$inits" | sort -n | head -1) ms"
echo "peak RSS: median $(( $(printf '%s' "$rss" | median) / 1024 )) MB ($runs runs)"
