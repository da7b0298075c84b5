#!/usr/bin/env bash
# hack/image/base.sh -- the operator Dockerfile's BASE_IMAGE, made here from Debian packages,
# because this machine reaches no container registry (python:3.11-slim cannot be pulled).
#
# A debootstrap --variant=minbase root of Debian bookworm with what the Dockerfile needs of
# python:3.11-slim: python3 (3.11), its venv module (and the pip wheel ensurepip installs),
# CA certificates and netbase. apt's caches, logs and device nodes are dropped (a container runtime
# makes /dev). The result is a rootfs tar, cached as $DYNAMO_CACHE/image/base-<key>.tar where <key>
# hashes this script (the whole recipe is here); the last stdout line is that path.
# Debian's python3 is /usr/bin/python3 where the official image has /usr/local/bin/python3; the
# Dockerfile only says `python3`, so both work.
set -euo pipefail
shopt -s inherit_errexit

SUITE=bookworm
PACKAGES=python3,python3-venv,ca-certificates,netbase

CACHE=${DYNAMO_CACHE:-$HOME/.cache/dynamo-operator}/image
mkdir -p "$CACHE"
key=$(sha256sum "${BASH_SOURCE[0]}" | cut -c1-16)
out=$CACHE/base-$key.tar
if [ -s "$out" ]; then
  echo "$out"
  exit 0
fi

# The Debian mirror apt already uses here (deb822 .sources or one-line lists); deb.debian.org otherwise.
debian_mirror() {
  local uri
  uri=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null \
    | awk '/^URIs:/ {for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) {print $i; exit}}')
  if [ -z "$uri" ]; then
    uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
      | awk '$1 == "deb" {for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) {print $i; exit}}')
  fi
  echo "${uri:-http://deb.debian.org/debian}"
}

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=hack/image/lib.sh
. "$HERE/lib.sh"
ensure_packages debootstrap=debootstrap

work=$(mktemp -d "$CACHE/base-build.XXXXXX")
cleanup() {
  # debootstrap mounts proc and sys inside the root while it runs: unmount before removing, and
  # never let rm cross into another filesystem.
  for m in "$work/rootfs/proc" "$work/rootfs/sys"; do
    mountpoint -q "$m" 2>/dev/null && umount -l "$m"
  done
  rm -rf --one-file-system "$work"
}
trap cleanup EXIT

mirror=$(debian_mirror)
echo "base.sh: debootstrap $SUITE ($PACKAGES) from $mirror, log in $work/debootstrap.log" >&2
started=$SECONDS
if ! debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$work/rootfs" "$mirror" \
  >"$work/debootstrap.log" 2>&1; then
  tail -n 30 "$work/debootstrap.log" >&2
  [ -f "$work/rootfs/debootstrap/debootstrap.log" ] && tail -n 30 "$work/rootfs/debootstrap/debootstrap.log" >&2
  echo "base.sh: debootstrap failed" >&2
  exit 1
fi

root=$work/rootfs
rm -rf "${root:?}"/var/cache/apt/archives/*.deb "${root:?}"/var/cache/apt/*.bin \
  "${root:?}"/var/lib/apt/lists/* "${root:?}"/var/cache/debconf/*-old "${root:?}"/var/log/* \
  "${root:?}"/dev/* "${root:?}"/tmp/* "${root:?}"/run/* "${root:?}"/root/.cache
tar --numeric-owner --xattrs -C "$root" -cf "$work/base.tar" .
mv "$work/base.tar" "$out"
find "$CACHE" -maxdepth 1 -name 'base-*.tar' ! -path "$out" -delete
size=$(du -m "$out" | cut -f1)
echo "base.sh: base rootfs $size MiB after $((SECONDS - started))s" >&2
echo "$out"
