#!/usr/bin/env bash
# real-repos.sh checks strata import against the seed repositories at their
# snapshots (not part of make test: it needs them; docs/import.md):
#
#   bash hack/real-repos.sh REPO... [-- SECRET-FILE...]
#
# REPO is a checkout or a bare mirror (a directory holding HEAD and objects/,
# or such a directory under repo/). Its format is found from its files:
# argocd/scripts/render.py (rosa-shards), charts/app-of-apps (app-of-apps),
# fleet/bootstrap/versions/applicationSets.yaml (eks-fleet; its hub's
# Secret, which Terraform writes, comes from the files after --: strata
# import's --cluster-secret), or
# apps/gitops/argocd (applications). Per repository it runs the repository's
# own tooling into want/, strata import (-o json) and strata render, renders
# each target strata wrote as Argo CD does (helm template of its chart, or
# its files) into got/, and prints hack/realcmp's comparison: objects
# compared, equal, different (each with the field) and whether the import
# report names each difference. The tooling: render.py (python3 with
# PyYAML), helm template per root of the app-of-apps chart (helm from
# hack/build-argocd.sh), kustomize build per overlay (hack/build-kustomize.sh;
# a directory without kustomization is its files, as Argo CD reads it), and
# for the EKS fleet the importer's ApplicationSet evaluation per cluster
# Secret (the same code TestE2EImportEKSFleet checks against Argo CD's
# controller). Exit status: 1 when a difference is not in a report.
set -euo pipefail
cd "$(dirname "$0")/.."
here=$PWD

repos=() secret_args=() realcmp_args=()
while (($#)); do
	if [[ $1 == -- ]]; then
		shift
		for f in "$@"; do
			f=$(realpath "$f")
			secret_args+=(--cluster-secret "$f") realcmp_args+=(-cluster-secret "$f")
		done
		break
	fi
	repos+=("$1")
	shift
done
((${#repos[@]})) || {
	echo "usage: $0 REPO... [-- SECRET-FILE...]" >&2
	exit 2
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/strata" ./cmd/strata
go build -o "$work/realcmp" ./hack/realcmp
helm="$(bash hack/build-argocd.sh 2>/dev/null | tail -1)/helm"
kustomize="$(bash hack/build-kustomize.sh 2>/dev/null | tail -1)/kustomize"
strata=$work/strata realcmp=$work/realcmp

# tree REPO DIR: a bare mirror's files at HEAD, or a checkout's as they are,
# in DIR; prints the commit.
tree() {
	local git=$1
	[[ -d $git/repo ]] && git=$git/repo
	mkdir -p "$2"
	if [[ -f $git/HEAD && -d $git/objects ]]; then
		git --git-dir="$git" archive HEAD | tar -x -C "$2"
		git --git-dir="$git" rev-parse --short HEAD
	elif [[ -e $git/.git ]]; then
		# A checkout: its files as they are, uncommitted changes too.
		tar -C "$git" --exclude=./.git -c . | tar -x -C "$2"
		echo "$(git -C "$git" rev-parse --short HEAD 2>/dev/null || echo "(no commit)") and its work tree"
	else
		cp -a "$git/." "$2/"
		echo "(no commit)"
	fi
}

# render_dir DIR OUT: the objects Argo CD renders from a target's directory:
# a chart through helm template, else its YAML files.
render_dir() {
	if [[ -f $1/Chart.yaml ]]; then
		"$helm" template root "$1" --namespace argocd >"$2"
	else
		find "$1" -maxdepth 1 \( -name '*.yaml' -o -name '*.yml' \) -print0 | sort -z | xargs -0 -r awk 'FNR == 1 { print "---" } { print }' >"$2"
	fi
}


# unjson FILE: strata's error in FILE (-o json) as text, indented.
unjson() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["message"])' "$1" 2>/dev/null | sed 's/^/  /' || sed 's/^/  /' "$1"
}

# compare_fleet FLEET WANT GOT REPORT: strata render of FLEET, each target
# it wrote rendered as Argo CD does into GOT, compared with WANT.
compare_fleet() {
	local fleet=$1 want=$2 got=$3 d out f
	"$strata" --root "$fleet" render -q
	# Each target strata wrote: the regional platform's <type>-manifests
	# directories (plain manifests, layout.manifests), else the directories
	# holding strata's chart.
	targets() {
		if [[ $format == rosa-shards ]]; then
			find argocd/rendered -type d -name '*-manifests'
		else
			find . -name Chart.yaml -not -path './config/*' -printf '%h\n'
		fi
	}
	(cd "$fleet" && targets) | sort | while read -r d; do
		d=${d#./}
		case $format in
		rosa-shards) out=$got/$d.yaml ;;
		*) out=$got/$(basename "$d").yaml ;;
		esac
		mkdir -p "$(dirname "$out")"
		render_dir "$fleet/$d" "$out"
	done
	if [[ $format == rosa-shards ]]; then
		(cd "$fleet" && find argocd/rendered -name '*-values.yaml') | while read -r f; do cp "$fleet/$f" "$got/$f"; done
	fi
	"$realcmp" compare -report "$4" "$want" "$got"
}

status=0
for repo in "${repos[@]}"; do
	name=$(basename "$(cd "$repo" && pwd)")
	src=$work/$name/src fleet=$work/$name/fleet want=$work/$name/want got=$work/$name/got
	mkdir -p "$want" "$got" "$fleet"
	rev=$(tree "$repo" "$src")
	git -C "$src" init -q # the importer reads through the Git root
	import=() format=""
	if [[ -f $src/argocd/scripts/render.py ]]; then
		format=rosa-shards import=(argocd)
		cp -a "$src" "$work/$name/tool"
		(cd "$work/$name/tool/argocd" && python3 scripts/render.py >/dev/null)
		(cd "$work/$name/tool" && find argocd/rendered -name '*.yaml' | while read -r f; do
			mkdir -p "$want/$(dirname "$f")"
			case $f in
			*/applicationset.yaml) cp "$f" "$want/${f%/applicationset.yaml}.yaml" ;;
			*) cp "$f" "$want/$f" ;;
			esac
		done)
	elif [[ -f $src/charts/app-of-apps/Chart.yaml ]]; then
		format=app-of-apps import=(charts/app-of-apps)
		for root in "$src"/argocd-bootstrap-apps/*.yaml; do
			read -r rel ns files < <(python3 -c '
import sys, yaml
a = yaml.safe_load(open(sys.argv[1]))
s = a["spec"]["source"]
print(s.get("helm", {}).get("releaseName") or a["metadata"]["name"], a["spec"]["destination"].get("namespace", "argocd"),
      " ".join(s.get("helm", {}).get("valueFiles", [])))' "$root")
			args=()
			for f in $files; do args+=(-f "$src/charts/app-of-apps/$f"); done
			"$helm" template "$rel" "$src/charts/app-of-apps" --namespace "$ns" "${args[@]}" >"$want/$(basename "$root")"
		done
	elif [[ -f $src/fleet/bootstrap/versions/applicationSets.yaml ]]; then
		format=eks-fleet import=(. "${secret_args[@]}")
		"$realcmp" source "${realcmp_args[@]}" eks-fleet "$src" "$want"
	elif [[ -d $src/apps/gitops/argocd ]]; then
		format=applications import=(apps/gitops/argocd)
		for env in "$src"/apps/gitops/argocd/*/; do
			e=$(basename "$env")
			if [[ -f $env/kustomization.yaml ]]; then
				"$kustomize" build "$env" >"$want/$e.yaml"
			else
				render_dir "$env" "$want/$e.yaml"
			fi
		done
	else
		echo "$repo: no format of strata import fits it" >&2
		status=1
		continue
	fi
	echo "== $name at $rev: strata import $format ${import[*]}"
	if (cd "$src" && "$strata" import "$format" "${import[@]}" --into "$fleet" -o json >"$work/$name/import.json" 2>"$work/$name/import.err"); then
		compare_fleet "$fleet" "$want" "$got" "$work/$name/import.json" || status=1
		continue
	fi
	echo "strata import fails (the import report):"
	unjson "$work/$name/import.err"
	[[ $format == applications ]] || continue
	# Each target directory alone, as SOURCE: what the rest gives.
	for dir in "$src/${import[0]}"/*/; do
		e=$(basename "$dir")
		echo "-- $e alone: strata import $format ${import[0]}/$e"
		mkdir -p "$work/$name/$e/want" "$work/$name/$e/got"
		if ! (cd "$src" && "$strata" import "$format" "${import[0]}/$e" --into "$work/$name/$e/fleet" -o json >"$work/$name/$e/import.json" 2>"$work/$name/$e/import.err"); then
			echo "strata import fails (the import report):"
			unjson "$work/$name/$e/import.err"
			continue
		fi
		cp "$want/$e.yaml" "$work/$name/$e/want/"
		compare_fleet "$work/$name/$e/fleet" "$work/$name/$e/want" "$work/$name/$e/got" "$work/$name/$e/import.json" || status=1
	done
done
exit $status
