#!/usr/bin/env bash
# bench-commit.sh times one rollout step's git work on a synthetic repository
# of DIRS x FILES rendered files (default 1000 x 100: rendered/ of 1,000 x 100
# at 100 components), one rendered file of one directory and one config file
# changed per run, each run its own commit: the commit as git commit --only
# made it (stage, count, commit, read HEAD) against the plumbing
# git.Repo.CommitStaged uses now (internal/git/commit.go), A/B with
# farm-bench, then the writer's `git status` of config/ and rendered/ alone.
#
#   hack/bench-commit.sh [DIRS] [FILES] [RUNS]    (default 1000 100 7)
set -euo pipefail
dirs="${1:-1000}" files="${2:-100}" runs="${3:-7}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
repo="$work/repo"
git init -q "$repo"
git -C "$repo" config user.name Bench
git -C "$repo" config user.email bench@example.com
for ((d = 0; d < dirs; d++)); do
	dir="$repo/rendered/t/prod/r-$(printf %04d "$d")"
	mkdir -p "$dir"
	for ((f = 0; f < files; f++)); do
		printf 'kind: Application\nmetadata:\n  name: c%02d-r%04d\n' "$f" "$d" >"$dir/c$(printf %02d "$f").yaml"
	done
done
mkdir -p "$repo/config/t/c05/prod"
echo 'a: 1' >"$repo/config/t/c05/prod/patch.yaml"
git -C "$repo" add -A
git -C "$repo" commit -q -m init
step='cd '"$repo"' && n=$(date +%s%N) && echo "x: $n" >rendered/t/prod/r-0005/c05.yaml && echo "a: $n" >config/t/c05/prod/patch.yaml
git add -A -- config rendered/t/prod/r-0005
files=$(git diff --cached --no-renames --relative --name-only -z -- config rendered/t/prod/r-0005 | tr "\0" " ")'
cat >"$work/only.sh" <<SH
#!/bin/sh
set -e
$step
git commit -q --allow-empty --only -m "Promote x" -- \$files
git rev-parse HEAD >/dev/null
SH
cat >"$work/plumb.sh" <<SH
#!/bin/sh
set -e
$step
head=\$(git rev-parse --show-toplevel --git-path hooks --verify -q HEAD | tail -1)
git config -z --get-regexp '^commit\.(gpgsign|cleanup)$' || true
git diff-index --cached --no-renames --name-only -z HEAD >/dev/null
tree=\$(git write-tree)
new=\$(git commit-tree \$tree -p \$head -m "Promote x")
git update-ref -m "commit: Promote x" HEAD \$new \$head
SH
cat >"$work/status.sh" <<SH
#!/bin/sh
cd $repo && git rev-parse --show-prefix >/dev/null && git status --porcelain --untracked-files=all -- config rendered >/dev/null
SH
chmod +x "$work"/*.sh
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $(git --version); index $(stat -c %s "$repo/.git/index") bytes"
farm-bench -n "$runs" --timeout 600 --vs "$work/only.sh" -- "$work/plumb.sh"
farm-bench -n "$runs" --timeout 600 -- "$work/status.sh"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
