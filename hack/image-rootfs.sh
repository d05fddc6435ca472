#!/usr/bin/env bash
# image-rootfs.sh writes the image's root file system but strata (the
# first layer of make image; hack/image.sh runs it, and so does the
# Dockerfile) into the directory ROOT, which must not exist:
#
#   hack/image-rootfs.sh ROOT
#
# It holds Debian's git, openssh-client and ca-certificates with their
# dependencies (Depends and Pre-Depends, as apt resolves them for an empty
# system; no Recommends), unpacked with dpkg-deb. No maintainer script
# runs, so what they would make is written here: the CA bundle (what
# update-ca-certificates writes), /etc/passwd and /etc/group with root and
# the user strata (65532), /var/lib/dpkg/status (for scanners). Every file
# is owned by root but the user's home; documentation but copyright files,
# manual pages and translations are left out, and set-user-ID and
# set-group-ID bits cleared (the image runs as a user that needs none).
# Nothing in it needs a shell, and it has none.
#
# The .deb files are kept in ${STRATA_CACHE:-$HOME/.cache/strata}/image/debs;
# apt-get update runs only when the package lists lack a package (as root).
# It prints NAME=VERSION of each package on stdout.
set -euo pipefail

root="${1:?usage: image-rootfs.sh ROOT}"
cache="${STRATA_CACHE:-$HOME/.cache/strata}/image/debs"
packages=(git openssh-client ca-certificates)
user=strata uid=65532

log() { printf 'image: %s\n' "$*" >&2; }

for tool in apt-get dpkg-deb; do
	command -v "$tool" >/dev/null || { log "$tool is not installed: the image is made of Debian packages"; exit 1; }
done
[[ ! -e "$root" ]] || { log "$root exists: give a new directory"; exit 1; }
[[ "$(id -u)" == 0 ]] || { log "run as root: the files' owners are root's and the user's"; exit 1; }

# resolve prints NAME=VERSION of every package the image holds, sorted.
resolve() {
	apt-get install -s -qq --no-install-recommends -o Dir::State::status=/dev/null "${packages[@]}" 2>/dev/null |
		awk '/^Inst /{print $2 "=" substr($3, 2)}' | LC_ALL=C sort
}
mapfile -t pins < <(resolve)
if [[ ${#pins[@]} == 0 ]]; then
	log "apt's package lists lack ${packages[*]}: apt-get update"
	apt-get update -qq >&2
	mapfile -t pins < <(resolve)
fi
if [[ ${#pins[@]} == 0 ]]; then
	log "apt could not resolve ${packages[*]}:"
	apt-get install -s --no-install-recommends -o Dir::State::status=/dev/null "${packages[@]}" >&2 || true
	exit 1
fi
log "${#pins[@]} Debian packages for ${packages[*]}"

# The .deb of each, downloaded once (apt checks it against the signed
# package lists).
mkdir -p "$cache"
debs=()
for p in "${pins[@]}"; do
	name=${p%%=*} ver=${p#*=}
	file="$(compgen -G "${cache}/${name}_${ver//:/%3a}_*.deb" | head -1 || true)"
	if [[ -z "$file" ]]; then
		(cd "$cache" && apt-get download -qq "$p" 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2 || true)
		file="$(compgen -G "${cache}/${name}_${ver//:/%3a}_*.deb" | head -1 || true)"
		[[ -n "$file" ]] || { log "apt-get download $p gave no file"; exit 1; }
	fi
	debs+=("$file")
done

mkdir -p "$root"
for deb in "${debs[@]}"; do
	dpkg-deb -x "$deb" "$root"
done
find "$root/usr/share/doc" -mindepth 1 \( -type f -o -type l \) ! -name copyright -delete
find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete
rm -rf "$root/usr/share/man" "$root/usr/share/info" "$root/usr/share/locale" "$root/usr/share/lintian"
setid="$(find "$root" -perm /6000 -type f -printf '/%P\n' | LC_ALL=C sort | tr '\n' ' ')"
[[ -z "$setid" ]] || log "clearing set-user-ID and set-group-ID bits: $setid"
find "$root" -perm /6000 -type f -exec chmod ug-s {} +

# What maintainer scripts would have made. The CA bundle is the
# certificates of ca-certificates in the order update-ca-certificates
# takes them (ca-certificates.conf lists them sorted), each ending in a
# newline.
mkdir -p "$root/etc/ssl/certs"
find "$root/usr/share/ca-certificates" -name '*.crt' -printf '%P\n' | LC_ALL=C sort |
	while read -r crt; do
		sed -e '$a\' "$root/usr/share/ca-certificates/$crt"
	done >"$root/etc/ssl/certs/ca-certificates.crt"
[[ -s "$root/etc/ssl/certs/ca-certificates.crt" ]] || { log "no CA certificates found"; exit 1; }
printf 'root:x:0:0:root:/root:/sbin/nologin\n%s:x:%d:%d:%s:/home/%s:/sbin/nologin\n' "$user" "$uid" "$uid" "$user" "$user" >"$root/etc/passwd"
printf 'root:x:0:\n%s:x:%d:\n' "$user" "$uid" >"$root/etc/group"
printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$root/etc/nsswitch.conf"
mkdir -p "$root/var/lib/dpkg" "$root/home/$user" "$root/root" "$root/tmp"
for deb in "${debs[@]}"; do
	dpkg-deb -f "$deb" | sed '/^Package:/a Status: install ok installed'
	echo
done >"$root/var/lib/dpkg/status"
chown -R 0:0 "$root"
chown "$uid:$uid" "$root/home/$user"
chmod 0755 "$root" "$root/home/$user"
chmod 0700 "$root/root"
chmod 1777 "$root/tmp"
printf '%s\n' "${pins[@]}"
