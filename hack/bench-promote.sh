#!/usr/bin/env bash
# bench-promote.sh compares `strata promote` of one step, its re-render
# included, built at a base revision and from the work tree, side by side on
# hack/bench-scale.sh's bench fleets. Per size: RUNS alternating runs of each
# binary (wall, user CPU, system CPU, peak RSS; medians). Before every run
# config/ is restored and rendered/ brought back by an untimed strata render,
# so that each run promotes the same step onto the same tree and re-renders
# what it changes; after the first run of each binary, render --check must
# find rendered/ up to date.
#
#   hack/bench-promote.sh BASE [RUNS] [SIZES...]    (default 5 runs; 1000 10000)
#
# The fleets go under $TMPDIR (use a tmpfs such as /dev/shm).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=hack/lib.sh
source hack/lib.sh
base="$1"
shift
runs="${1:-5}"
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000)
work="$(mktemp -d "${TMPDIR:-/tmp}/strata-promote.XXXXXX")"
trap 'rm -rf "$work"' EXIT
export STRATA_CACHE_DIR="$work/cache"

mkdir "$work/src"
git archive "$base" | tar -x -C "$work/src"
(cd "$work/src" && go build -o "$work/strata-base" ./cmd/strata)
go build -o "$work/strata-new" ./cmd/strata
go build -o "$work/genfleet" ./hack/genfleet

# "wall user sys rss" of a command, which must succeed.
measure() {
	/usr/bin/time -f "%e %U %S %M" -o "$work/t" "$@" >/dev/null 2>"$work/err" || { echo "failed: $*" && cat "$work/err" && return 1; } >&2
	cat "$work/t"
}
cell() { printf '%s / %s / %s / %s' "$(col "$1" 1)" "$(col "$1" 2)" "$(col "$1" 3)" "$(( $(col "$1" 4) / 1024 ))"; }

echo "base $(git rev-parse --short "$base"), work tree $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (modified)')"
echo "machine: $(nproc) cores; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "each cell: wall s / user CPU s / system CPU s / peak RSS MB, median of $runs alternating runs"
printf '| targets | step | base | work tree | user CPU work tree / base |\n|---|---|---|---|---|\n'
for n in "${sizes[@]}"; do
	fleet="$work/fleet-$n"
	"$work/genfleet" -out "$fleet" -regions $(( n / 40 )) >/dev/null
	cd "$fleet"
	read -r ct comp name < <(first_patch)
	step=$("$work/strata-new" promote "$ct" "$comp" "$name" --dry-run | sed -n 's/^would be promoted to \([^:]*\):.*/\1/p')
	"$work/strata-new" render >/dev/null 2>&1
	cp -r config "$work/config.orig"
	declare -A out=([base]="" [new]="")
	for i in $(seq "$runs"); do
		for bin in base new; do
			out[$bin]+="$(measure "$work/strata-$bin" promote "$ct" "$comp" "$name")"$'\n'
			if [ "$i" = 1 ] && ! "$work/strata-$bin" render --check >/dev/null 2>&1; then
				echo "strata-$bin: rendered/ is not up to date after the promotion" >&2
				exit 1
			fi
			rm -rf config && cp -r "$work/config.orig" config
			"$work/strata-new" render >/dev/null 2>&1
		done
	done
	rm -rf "$work/config.orig"
	ratio=$(awk -v a="$(col "${out[new]}" 2)" -v b="$(col "${out[base]}" 2)" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}')
	printf '| %s | %s | %s | %s | %s |\n' "$n" "$step" "$(cell "${out[base]}")" "$(cell "${out[new]}")" "$ratio"
	cd - >/dev/null
	rm -rf "$fleet"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
