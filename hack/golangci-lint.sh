#!/usr/bin/env bash
# golangci-lint.sh installs the pinned golangci-lint that `make lint` runs and
# prints the path of its binary (its last line on stdout; progress on stderr).
#
# The binary is built from the Go module at GOLANGCI_LINT_VERSION with
# `go install` into
#
#   ${STRATA_CACHE:-$HOME/.cache/strata}/golangci-lint/<version>/golangci-lint
#
# so nothing lives in the repository and a version bump is one edit here.
# Idempotent: with the binary present it only prints the path. FORCE=1 rebuilds.
set -euo pipefail

GOLANGCI_LINT_VERSION=v2.15.0

cache="${STRATA_CACHE:-$HOME/.cache/strata}"
bin="${cache}/golangci-lint/${GOLANGCI_LINT_VERSION}"

log() { printf 'golangci-lint: %s\n' "$*" >&2; }
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if built "${bin}" golangci-lint; then
	echo "${bin}/golangci-lint"
	exit 0
fi

# `go install mod@version` builds outside this module: no workspace, and no
# -mod flag inherited from the caller (CI sets -mod=mod, which it refuses).
export GOWORK=off GOFLAGS= CGO_ENABLED=0
mkdir -p "${bin}"
log "building golangci-lint ${GOLANGCI_LINT_VERSION} into ${bin} (a few minutes)"
start=${SECONDS}
GOBIN="${bin}" go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@${GOLANGCI_LINT_VERSION}" >&2
log "built in $((SECONDS - start))s"
echo "${bin}/golangci-lint"
