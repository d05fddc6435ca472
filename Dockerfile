# strata's container image for those who build with Docker: the same
# contents as `make image` (hack/image.sh, which writes an OCI image layout
# without Docker; docs/image.md): Debian's git, openssh-client and
# ca-certificates with their dependencies, unpacked by hack/image-rootfs.sh,
# and the static strata binary, run as strata (65532:65532). No shell.
#
#   docker build --build-arg VERSION=$(git describe --tags --always --dirty) -t strata:v0.1.0 .
#
# The digest differs from make image's: Docker writes its own layers (file
# times, the order of entries) and stamps no commit (the build has no .git).
ARG GO_VERSION=1.26
ARG DEBIAN=bookworm

FROM golang:${GO_VERSION}-${DEBIAN} AS strata
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=devel
RUN CGO_ENABLED=0 GOFLAGS="-mod=readonly -trimpath -buildvcs=false" go build \
	-ldflags "-s -w -buildid= -X github.com/strata-fleet/strata/internal/cli.Version=${VERSION}" \
	-o /out/usr/local/bin/strata ./cmd/strata && chmod -R go-w /out

FROM debian:${DEBIAN} AS rootfs
COPY hack/image-rootfs.sh /image-rootfs.sh
RUN apt-get update -qq && bash /image-rootfs.sh /rootfs

FROM scratch
COPY --from=rootfs /rootfs/ /
COPY --from=strata /out/ /
USER 65532:65532
WORKDIR /home/strata
ENV PATH=/usr/local/bin:/usr/bin:/bin HOME=/home/strata
ENTRYPOINT ["/usr/local/bin/strata"]
LABEL org.opencontainers.image.title=strata \
	org.opencontainers.image.source=https://github.com/strata-fleet/strata \
	org.opencontainers.image.licenses=Apache-2.0
