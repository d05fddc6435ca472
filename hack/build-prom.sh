#!/usr/bin/env bash
# build-prom.sh builds the Prometheus and Alertmanager that tests of
# rollout.stopWhen and of Prometheus checks run against (issue 25: a real
# Prometheus scraping the end-to-end tier's Argo CD metrics, a real
# Alertmanager whose alerts stop a rollout). hack/test-deps.sh runs it;
# the tests start the binaries through package promenv, whose versions
# must equal those below (a test checks that they do).
#
# Nothing it builds lives in the repository. Both come from their Go modules
# (github.com/prometheus/prometheus, whose module versions are v0.<minor>.x
# for Prometheus 3.<minor>.x, and github.com/prometheus/alertmanager) through
# the Go module proxy, Prometheus with go install MODULE@VERSION, Alertmanager
# with go build in a copy of its module (see below; neither go.mod has
# replace directives), into
#
#   ${STRATA_CACHE:-$HOME/.cache/strata}/prometheus/<version>/bin/
#
# Prometheus is built as its .promu.yml builds it (tag netgo) but without
# its embedded web UI (the builtinassets tag needs the UI's npm build; its
# HTTP API, which strata reads, is complete without it: web/ui/ui.go) and
# without the optional service discoveries (tag remove_all_sd, README.md
# "Service discovery plugins": static, file and http SD stay), which
# leaves out the cloud SDKs: the tests scrape static targets.
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
	(cd / && GOFLAGS= GOBIN="${bin}" go install -trimpath -tags netgo,remove_all_sd -ldflags "$(version_flags "${v}")" \
		"github.com/prometheus/prometheus/cmd/prometheus@${PROMETHEUS_MODULE_VERSION}") >&2
	log "prometheus built in $((SECONDS - start))s"
fi

if [[ ! -x "${bin}/alertmanager" || "${FORCE:-0}" == 1 ]]; then
	log "building alertmanager ${ALERTMANAGER_VERSION} into ${bin}"
	start=${SECONDS}
	# Its web UI is embedded (ui/web.go: //go:embed app/dist), built by npm
	# and left out of the module's zip, so go install MODULE@VERSION fails
	# ("pattern app/dist: no matching files found") and no build tag leaves
	# it out (README.md: building from source needs Node.js). The module is
	# built from a copy whose app/dist holds a page that says so: the API
	# v2, which strata reads, does not use it.
	src=$(cd / && GOFLAGS= go mod download -json "github.com/prometheus/alertmanager@${ALERTMANAGER_VERSION}" |
		sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	[[ -d "${src}" ]] || { log "go mod download found no directory for alertmanager ${ALERTMANAGER_VERSION}"; exit 1; }
	work=$(mktemp -d)
	trap 'rm -rf "${work}"' EXIT
	cp -R "${src}/." "${work}"
	chmod -R u+w "${work}"
	for ui in elm mantine; do
		mkdir -p "${work}/ui/app/dist/${ui}"
		echo '<!doctype html><title>Alertmanager</title><p>This Alertmanager was built without its web UI (strata hack/build-prom.sh); its API v2 is complete.' \
			>"${work}/ui/app/dist/${ui}/index.html"
	done
	(cd "${work}" && GOFLAGS= go build -trimpath -ldflags "$(version_flags "${ALERTMANAGER_VERSION#v}")" \
		-o "${bin}/alertmanager" ./cmd/alertmanager) >&2
	log "alertmanager built in $((SECONDS - start))s"
fi

"${bin}/prometheus" --version >&2 || true
"${bin}/alertmanager" --version >&2 || true
echo "${bin}"
