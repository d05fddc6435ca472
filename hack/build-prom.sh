#!/usr/bin/env bash
# build-prom.sh builds the Prometheus and Alertmanager that tests of
# rollout.stopWhen and of Prometheus checks run against (issue 25: a real
# Prometheus scraping the end-to-end tier's Argo CD metrics, a real
# Alertmanager whose alerts stop a rollout). It is not run by test-deps.sh
# yet: no test uses the binaries so far.
#
# Nothing it builds lives in the repository. Both come from their Go modules
# (github.com/prometheus/prometheus, whose module versions are v0.<minor>.x
# for Prometheus 3.<minor>.x, and github.com/prometheus/alertmanager) through
# the Go module proxy, with go install MODULE@VERSION (neither go.mod has
# replace directives), into
#
#   ${STRATA_CACHE:-$HOME/.cache/strata}/prometheus/<version>/bin/
#
# Prometheus is built without its embedded web UI (the builtinassets tag
# needs the UI's npm build): its HTTP API, which strata reads, is complete
# without it.
#
# The script is idempotent: with everything present it only prints the bin
# directory. Its last line on stdout is always that directory; progress goes to
# stderr. Run it with FORCE=1 to rebuild.
set -euo pipefail

PROMETHEUS_MODULE_VERSION=v0.316.0 # Prometheus 3.16.0
ALERTMANAGER_VERSION=v0.35.0

cache="${STRATA_CACHE:-$HOME/.cache/strata}"
bin="${cache}/prometheus/${PROMETHEUS_MODULE_VERSION}-am-${ALERTMANAGER_VERSION}/bin"

log() { printf 'build-prom: %s\n' "$*" >&2; }
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if built "${bin}" prometheus alertmanager; then
	log "prometheus ${PROMETHEUS_MODULE_VERSION} and alertmanager ${ALERTMANAGER_VERSION} already built in ${bin}"
	echo "${bin}"
	exit 0
fi

# The proxy alone, as build-argocd.sh does.
export GOPROXY=https://proxy.golang.org
export CGO_ENABLED=0
export GOTOOLCHAIN=local
export GOWORK=off
mkdir -p "${bin}"

version_flags() { # version_flags VERSION: prometheus/common's version variables
	local v=common/version
	echo "-s -w -X github.com/prometheus/${v}.Version=$1 -X github.com/prometheus/${v}.Branch=HEAD -X github.com/prometheus/${v}.BuildUser=strata"
}

if [[ ! -x "${bin}/prometheus" || "${FORCE:-0}" == 1 ]]; then
	minor="${PROMETHEUS_MODULE_VERSION#v0.}" # 316.0
	v="3.${minor#3}"                         # 3.16.0
	log "building prometheus ${v} (module ${PROMETHEUS_MODULE_VERSION}) into ${bin}"
	start=${SECONDS}
	# go install of a module@version ignores the surrounding module.
	(cd / && GOFLAGS= GOBIN="${bin}" go install -trimpath -ldflags "$(version_flags "${v}")" \
		"github.com/prometheus/prometheus/cmd/prometheus@${PROMETHEUS_MODULE_VERSION}") >&2
	log "prometheus built in $((SECONDS - start))s"
fi

if [[ ! -x "${bin}/alertmanager" || "${FORCE:-0}" == 1 ]]; then
	log "building alertmanager ${ALERTMANAGER_VERSION} into ${bin}"
	start=${SECONDS}
	(cd / && GOFLAGS= GOBIN="${bin}" go install -trimpath -ldflags "$(version_flags "${ALERTMANAGER_VERSION#v}")" \
		"github.com/prometheus/alertmanager/cmd/alertmanager@${ALERTMANAGER_VERSION}") >&2
	log "alertmanager built in $((SECONDS - start))s"
fi

"${bin}/prometheus" --version >&2 || true
"${bin}/alertmanager" --version >&2 || true
echo "${bin}"
