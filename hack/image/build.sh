#!/usr/bin/env bash
# hack/image/build.sh -- the operator image localhost/dynamo-operator:dev, built here from the
# repository's Dockerfile without Docker or a registry. The last stdout line is the path of a
# docker-archive tar that `ctr -n k8s.io images import` (or `docker load`) accepts.
#
#   1. the base: hack/image/base.sh makes a Debian bookworm root with python3 (cached rootfs tar),
#      committed once into buildah's store as localhost/dynamo-operator-base:<base key>;
#   2. the image: `buildah bud` of ./Dockerfile as it is (its RUN steps run in a chroot, pip reaches
#      PyPI) with --build-arg BASE_IMAGE=<that base>;
#   3. the archive: $DYNAMO_CACHE/image/dynamo-operator-dev-<key>.tar, where <key>
#      (hack/image/context_key.py) hashes the Dockerfile, .dockerignore, every file its COPYs read,
#      the base key and this script; with that archive present a run only computes the key.
#
# buildah's store lives in $DYNAMO_CACHE/image/buildah, never in the repository. One build at a
# time: a second caller waits on a lock and then reuses the first one's archive.
# Needs root (debootstrap, chroot); installs buildah and debootstrap from Debian when missing.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/hack/image
IMAGE=localhost/dynamo-operator:dev
CACHE=${DYNAMO_CACHE:-$HOME/.cache/dynamo-operator}/image
STORE=$CACHE/buildah
mkdir -p "$CACHE"
# shellcheck source=hack/image/lib.sh
. "$HERE/lib.sh"
log() { printf 'image/build.sh: %s\n' "$*" >&2; }

exec 9>"$CACHE/.build.lock"
if ! flock -n 9; then
  log "another build holds $CACHE/.build.lock; waiting"
  flock 9
fi

base_tar=$("$HERE/base.sh" | tail -n 1)
base_key=$(basename "$base_tar" .tar)
base_key=${base_key#base-}
key=$(python3 "$HERE/context_key.py" "$ROOT" "$ROOT/Dockerfile" "base=$base_key" \
  "build.sh=$(sha256sum <"$HERE/build.sh")")
out=$CACHE/dynamo-operator-dev-$key.tar
if [ -s "$out" ]; then
  log "reusing $out"
  echo "$out"
  exit 0
fi

ensure_command buildah buildah
buildah() {
  command buildah --root "$STORE/root" --runroot "$STORE/run" --storage-driver overlay "$@"
}

started=$SECONDS
base_image=localhost/dynamo-operator-base:$base_key
if ! buildah inspect --type image "$base_image" >/dev/null 2>&1; then
  log "committing $base_tar as $base_image"
  container=$(buildah from --pull=never scratch)
  mount=$(buildah mount "$container")
  tar --numeric-owner --xattrs -C "$mount" -xpf "$base_tar"
  buildah umount "$container" >/dev/null
  # What python:3.11-slim's config says that matters to a Dockerfile built on it.
  buildah config --os linux --arch amd64 \
    --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env LANG=C.UTF-8 --cmd '["python3"]' "$container"
  buildah commit --quiet --rm "$container" "$base_image" >/dev/null
  for stale in $(buildah images --noheading --format '{{.Name}}:{{.Tag}}' \
    | grep '^localhost/dynamo-operator-base:'); do
    [ "$stale" = "$base_image" ] || buildah rmi "$stale" >/dev/null
  done
fi

# The build's downloads (pip from PyPI) trust what this host trusts: machines whose egress goes
# through a TLS-inspecting proxy have its CA in the host bundle only. The bundle is bind-mounted
# over the base's for the RUN steps; a build-time volume is never committed into the image.
ca_bundle=${PIP_CERT:-${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}}
trust=()
[ -f "$ca_bundle" ] && trust=(--volume "$ca_bundle:/etc/ssl/certs/ca-certificates.crt:ro")

log "buildah bud $ROOT/Dockerfile with BASE_IMAGE=$base_image"
buildah bud --isolation chroot --pull=never --network host "${trust[@]}" \
  --build-arg "BASE_IMAGE=$base_image" --tag "$IMAGE" \
  --file "$ROOT/Dockerfile" "$ROOT" >&2

tmp=$(mktemp "$CACHE/.dynamo-operator-dev.XXXXXX.tar")
trap 'rm -f "$tmp"' EXIT
rm -f "$tmp"
buildah push --quiet "$IMAGE" "docker-archive:$tmp:$IMAGE" >&2
mv "$tmp" "$out"
# This archive and the one before it stay (a test of another session may still be importing that
# one); older archives go, and so do the images this tag no longer names.
ls -t "$CACHE"/dynamo-operator-dev-*.tar | tail -n +3 | xargs -r rm -f
buildah rmi --prune >/dev/null 2>&1 || true
log "built $IMAGE in $((SECONDS - started))s: $out ($(du -m "$out" | cut -f1) MiB)"
echo "$out"
