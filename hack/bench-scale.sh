#!/usr/bin/env bash
# bench-scale.sh measures how strata's render scales with the number of
# targets: bench fleets of 1,000, 2,000, 5,000 and 10,000 targets (SPEC §9's
# fleet with more regions per sector), each rendered in one invocation on
# the same filesystem, so that the ratios to the 1,000-target run compare
# like with like. Per size: a full render into an empty rendered/ (wall,
# user CPU, peak RSS), `cp -r` of its output, a no-op render, and a render
# after one region override changed. Medians of RUNS runs.
#
#   hack/bench-scale.sh [RUNS] [SIZES...]    (default 1 run; 1000 2000 5000 10000)
#
# Each size's fleet and output go under $TMPDIR (use a tmpfs such as
# /dev/shm to measure CPU rather than the disk); 10,000 targets write
# 220,000 files (about 1.4 GB).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=hack/lib.sh
source hack/lib.sh
runs="${1:-1}"
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 2000 5000 10000)
work="$(mktemp -d "${TMPDIR:-/tmp}/strata-scale.XXXXXX")"
trap 'rm -rf "$work"' EXIT
export STRATA_CACHE_DIR="$work/cache"

go build -o "$work/strata" ./cmd/strata
go build -o "$work/genfleet" ./hack/genfleet

# "wall user system rss" of a command, which must succeed.
measure() { timed "$work" "%e %U %S %M" "$@"; }

echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '| targets | full render (s) | user CPU (s) | system CPU (s) | peak RSS (MB) | cp -r (s) | full / cp | no-op (s) | one override (s) | full / 1,000 | user CPU / 1,000 | RSS / 1,000 |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|\n'
base_full="" base_user="" base_rss=""
for n in "${sizes[@]}"; do
	regions=$(( n / 40 ))
	fleet="$work/fleet-$n"
	"$work/genfleet" -out "$fleet" -regions "$regions" >/dev/null
	cd "$fleet"
	full="" copy="" noop="" one=""
	for i in $(seq "$runs"); do
		rm -rf rendered "$work/copy"
		full+="$(measure "$work/strata" render --no-cache)"$'\n'
		copy+="$(measure cp -r rendered "$work/copy")"$'\n'
		noop+="$(measure "$work/strata" render)"$'\n'
		overrides=(config/*/*/*/*/*/override.yaml)
		printf '# run %s\n' "$i" >>"${overrides[0]}"
		one+="$(measure "$work/strata" render)"$'\n'
	done
	rm -rf rendered "$work/copy"
	cd - >/dev/null
	rm -rf "$fleet"
	f=$(col "$full" 1) u=$(col "$full" 2) s=$(col "$full" 3) m=$(( $(col "$full" 4) / 1024 )) c=$(col "$copy" 1)
	[ -n "$base_full" ] || { base_full=$f; base_user=$u; base_rss=$m; }
	printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$n" "$f" "$u" "$s" "$m" "$c" \
		"$(awk -v a="$f" -v b="$c" 'BEGIN {printf "%.2f", a/b}')" "$(col "$noop" 1)" "$(col "$one" 1)" \
		"$(awk -v a="$f" -v b="$base_full" 'BEGIN {printf "%.1f", a/b}')" \
		"$(awk -v a="$u" -v b="$base_user" 'BEGIN {printf "%.1f", a/b}')" \
		"$(awk -v a="$m" -v b="$base_rss" 'BEGIN {printf "%.2f", a/b}')"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
