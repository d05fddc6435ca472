#!/usr/bin/env bash
# killtest.sh measures what kill -9 during `strata render` leaves in
# rendered/ (issue 11, point 3). On SPEC §9's bench fleet it flips a value
# that changes almost every file of every target (revisionHistoryLimit in
# defaults.yaml), starts `strata render`, kills it with SIGKILL in its write
# phase (odd runs: at a random moment of the switch, up to 0.3 s after the
# journal appears; even runs: at a random moment after staging began), and
# classifies every target directory against the
# uninterrupted old and new trees:
#
#   old / new   the directory is entirely the old or the new tree
#   torn        anything else (a mix of files, a stray or missing file)
#
# A run leaves a mixed tree when a target is torn, or when old and new
# targets coexist without the journal that the next run completes. Then it
# runs `strata render` and checks that rendered/ is exactly the new tree.
#
#   hack/killtest.sh [RUNS]        (default 20)
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-20}"
work="$(mktemp -d "${TMPDIR:-/tmp}/strata-kill.XXXXXX")"
trap 'rm -rf "$work"' EXIT
export STRATA_CACHE_DIR="$work/cache"

go build -o "$work/strata" ./cmd/strata
go run ./hack/genfleet -out "$work/fleet" >/dev/null
cd "$work/fleet"
defaults=(config/*/defaults.yaml)
flip() { sed -i "s/revisionHistoryLimit: $1\$/revisionHistoryLimit: $2/" "${defaults[@]}"; }

# digests prints one line per target directory: the directory and a digest
# of its file names and contents.
digests() {
	(cd rendered && find . -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 sha256sum) |
		awk '{split($2, p, "/"); t = p[1] "/" p[2] "/" p[3] "/" p[4]; d[t] = d[t] substr($1, 1, 16) $2 ";"} END {for (t in d) print t, d[t]}' |
		LC_ALL=C sort
}

"$work/strata" render >/dev/null
digests >"$work/d5"
flip 5 6
start=$(date +%s%N)
"$work/strata" render >/dev/null
took=$(awk -v a="$start" -v b="$(date +%s%N)" 'BEGIN {printf "%.2f", (b - a) / 1e9}')
digests >"$work/d6"
echo "an uninterrupted render of the change takes ${took} s; $(wc -l <"$work/d6") targets"

mixed=0 torn=0 pending=0 wrong=0 from=6 to=5
# The journal of a switch is in the checkout's local state (internal/localstate).
journal_file() { compgen -G "$STRATA_CACHE_DIR/repos/*/render.journal" >/dev/null; }
printf '| run | killed after (s) | old | new | torn | journal | mixed | after the next render |\n|---|---|---|---|---|---|---|---|\n'
for i in $(seq "$runs"); do
	flip "$from" "$to"
	"$work/strata" render >/dev/null 2>&1 &
	pid=$!
	if [ $((i % 2)) = 1 ]; then
		phase=journal span=0.3
	else
		phase=.strata-render/new span=$(awk -v t="$took" 'BEGIN {print t / 2}')
	fi
	start=$(date +%s%N)
	appeared() { if [ "$phase" = journal ]; then journal_file; else [ -e "$phase" ]; fi; }
	while ! appeared && kill -0 "$pid" 2>/dev/null; do sleep 0.01; done
	delay=$(awk -v t="$span" -v r="$RANDOM" 'BEGIN {printf "%.2f", t * r / 32767}')
	sleep "$delay"
	kill -9 "$pid" 2>/dev/null || true
	delay=$(awk -v a="$start" -v b="$(date +%s%N)" 'BEGIN {printf "%.2f", (b - a) / 1e9}')
	wait "$pid" 2>/dev/null || true
	digests >"$work/now"
	read -r o n t < <(join -a 1 -a 2 -e MISSING -o 0,1.2,2.2 "$work/now" "$work/d$from" |
		join -a 1 -e MISSING -o 0,1.2,1.3,2.2 - "$work/d$to" |
		awk '{if ($2 == $4) n++; else if ($2 == $3) o++; else t++} END {print o + 0, n + 0, t + 0}')
	journal=no
	journal_file && journal=yes && pending=$((pending + 1))
	ismixed=no
	if [ "$t" -gt 0 ] || { [ "$o" -gt 0 ] && [ "$n" -gt 0 ] && [ "$journal" = no ]; }; then
		ismixed=yes mixed=$((mixed + 1))
	fi
	[ "$t" -gt 0 ] && torn=$((torn + 1))
	"$work/strata" render >/dev/null
	digests >"$work/after"
	after=new
	if ! cmp -s "$work/after" "$work/d$to" || [ -e .strata-render ]; then after=WRONG wrong=$((wrong + 1)); fi
	printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$i" "$delay" "$o" "$n" "$t" "$journal" "$ismixed" "$after"
	tmp=$from from=$to to=$tmp
done
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$runs kills: $mixed left a mixed tree ($torn with a torn target), $pending left a journal that the next run completed, $wrong wrong after the next render"
