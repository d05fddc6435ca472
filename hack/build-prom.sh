#!/usr/bin/env bash
# build-prom.sh puts in place the Prometheus and Alertmanager that tests of
# rollout.stopWhen and of Prometheus checks run against (issue 25: a real
# Prometheus scraping the end-to-end tier's Argo CD metrics, a real
# Alertmanager whose alerts stop a rollout). hack/test-deps.sh runs it;
# the tests start the binaries through package promenv, whose versions
# must equal those below (a test checks that they do).
#
# Both go into
#
#   ${STRATA_CACHE:-$HOME/.cache/strata}/prometheus/<version>-am-<version>/bin/
#
# Prometheus is Debian's: the binary of the package prometheus, taken from
# its .deb file (apt-get download, dpkg-deb -x: nothing is installed, no
# service is started). Until issue 37 it was built from its Go module
# (Prometheus 3.16.0): about 500 s of CPU on every new machine
# (BENCHMARKS.md), where the download takes seconds. What strata reads of
# it is the same in both: the HTTP API v1's instant queries, and the
# tests' Prometheus scrapes static targets in the text format. The script
# fails if Debian's upstream version is not the one pinned here (a new
# Debian release), so that the version the tests name stays true.
#
# Alertmanager is built from its Go module (github.com/prometheus/
# alertmanager, through the Go module proxy): Debian's reads its default
# notification template from /usr/share/prometheus/alertmanager, which only
# installing the package (and its service) puts there.
#
# The script is idempotent: with both present it only prints the bin
# directory. Its last line on stdout is always that directory; progress goes
# to stderr. Run it with FORCE=1 to fetch them again.
set -euo pipefail

PROMETHEUS_VERSION=2.42.0
ALERTMANAGER_VERSION=v0.35.0

cache="${STRATA_CACHE:-$HOME/.cache/strata}"
bin="${cache}/prometheus/${PROMETHEUS_VERSION}-am-${ALERTMANAGER_VERSION}/bin"

log() { printf 'build-prom: %s\n' "$*" >&2; }
# shellcheck source=hack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if built "${bin}" prometheus alertmanager; then
	log "prometheus ${PROMETHEUS_VERSION} and alertmanager ${ALERTMANAGER_VERSION} already in ${bin}"
	echo "${bin}"
	exit 0
fi

for tool in apt-get apt-cache dpkg-deb; do
	command -v "$tool" >/dev/null || { log "$tool is not installed: Prometheus is Debian's package"; exit 1; }
done

# upstream PACKAGE prints the upstream version of PACKAGE's candidate
# (2.42.0 of 2.42.0+ds-5+deb12u1), or nothing.
upstream() {
	apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: \([0-9]*:\)\{0,1\}\([0-9.]*\).*/\2/p'
}
if [[ -z "$(upstream prometheus)" && "$(id -u)" == 0 ]]; then
	log "apt's package lists lack prometheus: apt-get update"
	apt-get update -qq >&2
fi
got="$(upstream prometheus)"
if [[ "$got" != "${PROMETHEUS_VERSION}" ]]; then
	log "Debian's prometheus is '${got:-not found}', this script pins ${PROMETHEUS_VERSION}: change PROMETHEUS_VERSION here and in internal/testing/promenv together"
	exit 1
fi

mkdir -p "${bin}"
if [[ ! -x "${bin}/prometheus" || "${FORCE:-0}" == 1 ]]; then
	deb="$(mktemp -d)"
	log "downloading Debian's prometheus ${PROMETHEUS_VERSION}"
	(cd "${deb}" && apt-get download -qq prometheus 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2 || true)
	[[ -f "$(compgen -G "${deb}/prometheus_*.deb")" ]] || { log "apt-get download gave no prometheus .deb"; exit 1; }
	dpkg-deb -x "${deb}"/prometheus_*.deb "${deb}/root"
	install -m 0755 "${deb}/root/usr/bin/prometheus" "${bin}/prometheus"
	rm -rf "${deb}"
fi

# The proxy alone, as build-argocd.sh does.
export GOPROXY=https://proxy.golang.org
export CGO_ENABLED=0
export GOTOOLCHAIN=local
export GOWORK=off

version_flags() { # version_flags VERSION: prometheus/common's version variables
	local v=common/version
	echo "-s -w -X github.com/prometheus/${v}.Version=$1 -X github.com/prometheus/${v}.Branch=HEAD -X github.com/prometheus/${v}.BuildUser=strata"
}

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

"${bin}/prometheus" --version >&2
"${bin}/alertmanager" --version >&2
echo "${bin}"
