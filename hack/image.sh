#!/usr/bin/env bash
# image.sh builds strata's container image (make image) as an OCI image
# layout, offline but for Debian's packages, reproducibly: the same commit
# and the same Debian package versions give the same manifest digest.
#
#   hack/image.sh                 # into dist/image, tagged as make release names the version
#   VERSION=v1.0.0 hack/image.sh /tmp/strata-image
#
# The image (docs/image.md) is two layers:
#   1. Debian's git, openssh-client and ca-certificates with their
#      dependencies, and the user strata (65532): hack/image-rootfs.sh;
#   2. the strata binary, static (CGO_ENABLED=0), built as make release
#      builds it, at /usr/local/bin/strata, the entry point.
# It runs as strata (65532:65532) in /home/strata; it has no shell.
#
# hack/ociimage writes the layout; the last line on stdout is the manifest's
# digest. The Dockerfile beside the Makefile builds the same image with
# Docker.
set -euo pipefail
cd "$(dirname "$0")/.."

out="${1:-dist/image}"
version="${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo devel)}"
# Every file's time and the image's creation time: the commit's.
epoch="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}"
revision="$(git rev-parse HEAD 2>/dev/null || echo unknown)"
user=strata uid=65532

log() { printf 'image: %s\n' "$*" >&2; }
command -v dpkg >/dev/null || { log "dpkg is not installed: the image is made of Debian packages"; exit 1; }
if [[ -e "$out" && ! -f "$out/oci-layout" ]]; then
	log "$out exists and is not an image layout: not removing it"
	exit 1
fi
arch="$(dpkg --print-architecture)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
root="$work/rootfs" app="$work/app"

# Layer 1: the packages.
bash hack/image-rootfs.sh "$root" >"$work/packages"
mapfile -t pins <"$work/packages"
mkdir -p "$app/usr/local/bin"

# Layer 2: strata, as hack/release.sh builds it.
log "building strata ${version} (linux/${arch}, static)"
GOFLAGS="-mod=readonly -trimpath -buildvcs=true" CGO_ENABLED=0 GOOS=linux GOARCH="$arch" go build \
	-ldflags "-s -w -buildid= -X github.com/strata-fleet/strata/internal/cli.Version=${version}" \
	-o "$app/usr/local/bin/strata" ./cmd/strata
chmod -R go-w "$app"

created="$(date -u -d "@${epoch}" +%Y-%m-%dT%H:%M:%SZ)"
rm -rf "$out"
mkdir -p "$(dirname "$out")"
digest="$(GOFLAGS=-mod=readonly go run ./hack/ociimage -out "$out" -ref "$version" -created "$created" -arch "$arch" \
	-layer "$root" -comment "Debian: ${pins[*]}" \
	-layer "$app" -comment "strata ${version} (${revision})" \
	-owner "home/${user}=${uid}:${uid}" -user "${uid}:${uid}" -workdir "/home/${user}" \
	-env PATH=/usr/local/bin:/usr/bin:/bin -env "HOME=/home/${user}" \
	-entrypoint /usr/local/bin/strata \
	-label org.opencontainers.image.title=strata \
	-label "org.opencontainers.image.version=${version}" \
	-label "org.opencontainers.image.revision=${revision}" \
	-label "org.opencontainers.image.created=${created}" \
	-label org.opencontainers.image.source=https://github.com/strata-fleet/strata \
	-label org.opencontainers.image.licenses=Apache-2.0)"
size="$(du -sb "$out/blobs" | cut -f1)"
log "wrote strata:${version} to ${out} (${size} bytes of blobs)"
echo "$digest"
