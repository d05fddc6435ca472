#!/usr/bin/env bash
# release.sh builds strata's release binaries into dist/: linux and darwin,
# amd64 and arm64, stripped and reproducible (the same commit gives the same
# bytes on any machine: -trimpath, no build ID, no build time, CGO off), and
# a SHA256SUMS file. It publishes nothing.
#
#   hack/release.sh            # version from `git describe`, e.g. v0.4.0-3-gabc1234
#   VERSION=v1.0.0 hack/release.sh
#   hack/release.sh --version  # print the version it would stamp, build nothing
#
# Without a tag that describes HEAD the version is CHANGELOG.md's last one
# (its first "## v" heading): the version being cut. internal/cli's
# Release is the same; TestReleaseIsTheChangelogs keeps the three in line.
set -euo pipefail
cd "$(dirname "$0")/.."

changelog="$(sed -n 's/^## \(v[0-9][^ ]*\).*/\1/p' CHANGELOG.md | head -n 1)"
version="${VERSION:-$(git describe --tags --dirty 2>/dev/null || echo "$changelog")}"
if [ -z "$version" ]; then
	echo "release.sh: no tag describes HEAD and CHANGELOG.md names no version (## vX.Y.Z): give VERSION" >&2
	exit 1
fi
if [ "${1:-}" = --version ]; then
	echo "$version"
	exit 0
fi
platforms=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64)
out=dist
rm -rf "$out"
mkdir -p "$out"

# The environment may turn VCS stamping off (GOFLAGS=-buildvcs=false); a
# release carries its commit and commit time, so it is on here.
export GOFLAGS="-mod=readonly -trimpath -buildvcs=true" CGO_ENABLED=0
for p in "${platforms[@]}"; do
	os=${p%/*} arch=${p#*/}
	bin="$out/strata-${version}-${os}-${arch}"
	GOOS=$os GOARCH=$arch go build \
		-ldflags "-s -w -buildid= -X github.com/strata-fleet/strata/internal/cli.Version=${version}" \
		-o "$bin" ./cmd/strata
	printf '%-40s %s bytes\n' "$bin" "$(stat -c %s "$bin")"
done
# The binary's size is kept from growing without reason: over the limit in
# hack/binary-size-limit, the build fails; a commit that raises the limit
# says why (BENCHMARKS.md records the size and the cold go run time).
limit=$(tr -d ' \n' <hack/binary-size-limit)
size=$(stat -c %s "$out/strata-${version}-linux-amd64")
if [ "$size" -gt "$limit" ]; then
	echo "release.sh: strata-${version}-linux-amd64 is $size bytes, over the limit of $limit bytes in hack/binary-size-limit: find what grew it (go version -m, go tool nm -size -sort size), or raise the limit in a commit that says why" >&2
	exit 1
fi
(cd "$out" && sha256sum strata-* > SHA256SUMS)
echo "wrote $out/SHA256SUMS"
