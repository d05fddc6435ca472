#!/usr/bin/env bash
# bench.sh measures strata on SPEC §9's bench fleet side by side with `cp -r`
# of the same output tree on the same filesystem, alternating runs so that
# both see the same machine load. It prints medians and ratios.
#
#   hack/bench.sh [RUNS]        (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=hack/lib.sh
source hack/lib.sh
runs="${1:-5}"
work="$(mktemp -d "${TMPDIR:-/tmp}/strata-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
export STRATA_CACHE_DIR="$work/cache"

go build -o "$work/strata" ./cmd/strata
go run ./hack/genfleet -out "$work/fleet" >/dev/null
cd "$work/fleet"

# seconds and peak KB of a command, which must succeed, as "wall rss".
measure() { timed "$work" "%e %M" "$@"; }

full=() copy=() rss=() noop=() one=()
for i in $(seq "$runs"); do
	rm -rf rendered "$work/copy"
	r=$(measure "$work/strata" render --no-cache); read -r t m <<<"$r"; full+=("$t"); rss+=("$m")
	r=$(measure cp -r rendered "$work/copy"); read -r t _ <<<"$r"; copy+=("$t")
	r=$(measure "$work/strata" render); read -r t _ <<<"$r"; noop+=("$t")
done
overrides=(config/*/*/*/*/*/override.yaml)
override="${overrides[0]}"
for i in $(seq "$runs"); do
	printf '# run %s\n' "$i" >>"$override"
	r=$(measure "$work/strata" render); read -r t _ <<<"$r"; one+=("$t")
done

mf=$(printf '%s\n' "${full[@]}" | median)
mc=$(printf '%s\n' "${copy[@]}" | median)
mn=$(printf '%s\n' "${noop[@]}" | median)
mo=$(printf '%s\n' "${one[@]}" | median)
mr=$(printf '%s\n' "${rss[@]}" | sort -n | tail -1)
files=$(find rendered -type f | wc -l)
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "bench fleet: $files files rendered; $runs runs each, medians"
printf '| measure | median (s) | budget |\n|---|---|---|\n'
printf '| full render into an empty rendered/ | %s | <= 1.3 x cp -r |\n' "$mf"
printf '| cp -r of the same tree | %s | |\n' "$mc"
printf '| ratio full / cp | %s | <= 1.3 |\n' "$(awk -v a="$mf" -v b="$mc" 'BEGIN {printf "%.2f", a/b}')"
printf '| no-op re-render | %s | <= 0.3 s |\n' "$mn"
printf '| one region override changed | %s | |\n' "$mo"
printf '| peak memory of a full render | %s MB | <= 400 MB |\n' "$((mr / 1024))"
