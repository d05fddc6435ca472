#!/usr/bin/env bash
# bench-commands.sh measures how strata's commands other than render scale
# with the number of targets: bench fleets of 1,000, 2,000, 5,000 and 10,000
# targets (hack/bench-scale.sh's), each measured in one invocation. Per size:
# validate (wall, user CPU, peak RSS), status, explain of one field, and
# promote of one patch by one step (--dry-run, then applied to a rendered
# fleet: the config change and the re-render of the targets it reaches),
# each the median of RUNS runs.
#
#   hack/bench-commands.sh [RUNS] [SIZES...]    (default 3 runs; 1000 2000 5000 10000)
#
# The fleets go under $TMPDIR (use a tmpfs such as /dev/shm).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=hack/lib.sh
source hack/lib.sh
runs="${1:-3}"
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 2000 5000 10000)
work="$(mktemp -d "${TMPDIR:-/tmp}/strata-commands.XXXXXX")"
trap 'rm -rf "$work"' EXIT
export STRATA_CACHE_DIR="$work/cache"

go build -o "$work/strata" ./cmd/strata
go build -o "$work/genfleet" ./hack/genfleet

# "wall user rss" of a command.
measure() { /usr/bin/time -f "%e %U %M" -o "$work/t" "$@" >/dev/null 2>&1 || true; cat "$work/t"; }
# times RUNS times the command and prints "wall user rss(MB)", medians.
timed() {
	local out=""
	for _ in $(seq "$runs"); do out+="$(measure "$@")"$'\n'; done
	printf '%s / %s / %s' "$(col "$out" 1)" "$(col "$out" 2)" "$(( $(col "$out" 3) / 1024 ))"
}

echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "each cell: wall s / user CPU s / peak RSS MB, median of $runs"
printf '| targets | validate | status | explain | promote --dry-run | promote |\n|---|---|---|---|---|---|\n'
for n in "${sizes[@]}"; do
	fleet="$work/fleet-$n"
	"$work/genfleet" -out "$fleet" -regions $(( n / 40 )) >/dev/null
	cd "$fleet"
	read -r ct comp name < <(first_patch)
	"$work/strata" status -o json >"$work/status.json"
	target=$(awk -F'"' '/"name":/ && /\// {print $4; exit}' "$work/status.json")
	v=$(timed "$work/strata" validate)
	s=$(timed "$work/strata" status)
	e=$(timed "$work/strata" explain "$target" "$comp" source.targetRevision)
	d=$(timed "$work/strata" promote "$ct" "$comp" "$name" --dry-run)
	"$work/strata" render >/dev/null 2>&1 # promote re-renders what it changed
	cp -r config "$work/config.orig"
	out=""
	for _ in $(seq "$runs"); do
		out+="$(measure "$work/strata" promote "$ct" "$comp" "$name")"$'\n'
		rm -rf config && cp -r "$work/config.orig" config
		"$work/strata" render >/dev/null 2>&1 # back to before it, so that every run re-renders the step
	done
	rm -rf "$work/config.orig"
	p="$(col "$out" 1) / $(col "$out" 2) / $(( $(col "$out" 3) / 1024 ))"
	printf '| %s | %s | %s | %s | %s | %s |\n' "$n" "$v" "$s" "$e" "$d" "$p"
	cd - >/dev/null
	rm -rf "$fleet"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
