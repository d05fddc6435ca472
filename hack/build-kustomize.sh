#!/usr/bin/env bash
# build-kustomize.sh builds the kustomize CLI that hack/real-repos.sh runs as
# a repository's own tooling (infractl's overlays), from the
# sigs.k8s.io/kustomize/kustomize/v5 Go module into
#
#   ${STRATA_CACHE:-$HOME/.cache/strata}/kustomize/<version>/bin/kustomize
#
# The version is the one whose API module strata's importer links
# (sigs.k8s.io/kustomize/api in go.mod), so that both build alike; the
# argocd binary of build-argocd.sh runs the repo-server role only and has no
# kustomize command. Idempotent: with the binary present it only prints the
# bin directory, its last line on stdout; progress goes to stderr.
set -euo pipefail

# kustomize v5.8.1 requires sigs.k8s.io/kustomize/api v0.21.1 (go.mod's).
KUSTOMIZE_VERSION=v5.8.1

cache="${STRATA_CACHE:-$HOME/.cache/strata}"
bin="${cache}/kustomize/${KUSTOMIZE_VERSION}/bin"
log() { printf 'build-kustomize: %s\n' "$*" >&2; }

if [[ -x "${bin}/kustomize" && "${FORCE:-0}" != 1 ]]; then
	log "kustomize ${KUSTOMIZE_VERSION} already built in ${bin}"
	echo "${bin}"
	exit 0
fi
mkdir -p "${bin}"
log "building kustomize ${KUSTOMIZE_VERSION} into ${bin}"
GOPROXY=https://proxy.golang.org GOTOOLCHAIN=local GOWORK=off CGO_ENABLED=0 GOBIN="${bin}" \
	go install -trimpath "sigs.k8s.io/kustomize/kustomize/v5@${KUSTOMIZE_VERSION}" >&2
"${bin}/kustomize" version >&2
echo "${bin}"
