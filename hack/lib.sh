# lib.sh holds what the hack/ scripts share. Source it; it defines functions only.

# apt_ensure CMD PKG [CMD PKG ...] installs, with Debian's apt, the package of
# each command that is not on PATH, when running as root; otherwise it warns.
# Callers define log().
apt_ensure() {
	local missing=()
	while [[ $# -ge 2 ]]; do
		command -v "$1" >/dev/null 2>&1 || missing+=("$2")
		shift 2
	done
	[[ ${#missing[@]} -gt 0 ]] || return 0
	if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
		log "installing ${missing[*]} with apt-get"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq >&2
		apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
	else
		log "warning: install the Debian packages ${missing[*]}"
	fi
}

# built BIN NAME... succeeds when every NAME is an executable in BIN and
# FORCE is not 1.
built() {
	local bin=$1 b
	shift
	[[ "${FORCE:-0}" == 1 ]] && return 1
	for b in "$@"; do
		[[ -x "${bin}/${b}" ]] || return 1
	done
}

# timed DIR FORMAT CMD... runs CMD under /usr/bin/time -f FORMAT, its output
# discarded, after flushing earlier writes (sync, not timed), so that no
# command pays for another's write-back, and prints the measurement. A
# command that fails stops the measurement with its error: a `cp -r` that
# runs out of space or inodes finishes fast and would pass for a time.
# DIR holds the scratch files.
timed() {
	local dir=$1 format=$2
	shift 2
	sync
	/usr/bin/time -f "$format" -o "$dir/t" "$@" >/dev/null 2>"$dir/err" ||
		{ echo "failed: $*" && tail -5 "$dir/err" && return 1; } >&2
	cat "$dir/t"
}

# median prints the median of the numbers on stdin, one a line.
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# col TEXT N prints the median of column N of TEXT's non-empty lines.
col() { printf '%s' "$1" | awk -v c="$2" 'NF {print $c}' | median; }

# first_patch prints "CLUSTER_TYPE COMPONENT PATCH" of the first patch file
# of the fleet in the current directory (a bench fleet's promotion).
first_patch() {
	local p
	p=$(find config -name 'patch-*.yaml' | sort | head -1) # config/CT/COMP/...
	echo "$(echo "$p" | cut -d/ -f2) $(echo "$p" | cut -d/ -f3) $(basename "$p" .yaml)"
}
