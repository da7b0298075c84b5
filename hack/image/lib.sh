# shellcheck shell=bash
# Sourced by hack/image/*.sh.
#
# The image builds (build.sh: the operator image; build-dynamo.sh: the Dynamo test image) share
# one buildah store, one lock and one base; the steps they share are the functions below. They
# read the caller's HERE (this directory), CACHE ($DYNAMO_CACHE/image) and STORE (buildah's
# store) and log through the caller's `log`.
set -euo pipefail # as in the scripts that source this file (said again for the functions' readers)
shopt -s inherit_errexit

# ensure_packages (Debian packages installed when missing) and stop_on_failure.
# shellcheck source=hack/lib/common.sh
. "$HERE/../lib/common.sh"

# image_lock: one build at a time over the shared store (fd 9 stays open, so the lock is held
# until the caller exits); a second caller waits, then finds the first one's archive.
image_lock() {
  exec 9>"$CACHE/.build.lock"
  if ! flock -n 9; then
    log "another build holds $CACHE/.build.lock; waiting"
    flock 9
  fi
}

# image_base: the base rootfs tar (hack/image/base.sh, cached) in base_tar, its key in base_key.
image_base() {
  base_tar=$("$HERE/base.sh" | tail -n 1)
  base_key=$(basename "$base_tar" .tar)
  base_key=${base_key#base-}
}

# use_buildah_store: buildah installed, and `buildah` from here on means buildah on our store.
# (Defined only after ensure_packages: `command -v` would take the function for the program.)
use_buildah_store() {
  ensure_packages buildah=buildah
  # shellcheck disable=SC2317 # called by the scripts that source this file
  buildah() {
    command buildah --root "$STORE/root" --runroot "$STORE/run" --storage-driver overlay "$@"
  }
}

# image_commit_base: the base tar committed once into the store as base_image
# (localhost/dynamo-operator-base:<base key>); stale bases are untagged.
image_commit_base() {
  base_image=localhost/dynamo-operator-base:$base_key
  buildah inspect --type image "$base_image" >/dev/null 2>&1 && return 0
  log "committing $base_tar as $base_image"
  local container mount images stale
  container=$(buildah from --pull=never scratch)
  mount=$(buildah mount "$container")
  tar --numeric-owner --xattrs -C "$mount" -xpf "$base_tar"
  buildah umount "$container" >/dev/null
  # What python:3.11-slim's config says that matters to a Dockerfile built on it.
  buildah config --os linux --arch amd64 \
    --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env LANG=C.UTF-8 --cmd '["python3"]' "$container"
  buildah commit --quiet --rm "$container" "$base_image" >/dev/null
  images=$(buildah images --noheading --format '{{.Name}}:{{.Tag}}')
  for stale in $(grep '^localhost/dynamo-operator-base:' <<<"$images" || true); do
    [ "$stale" = "$base_image" ] || buildah rmi "$stale" >/dev/null
  done
}

# image_bud DOCKERFILE CONTEXT IMAGE: `buildah bud` of DOCKERFILE on base_image, tagged IMAGE.
# The build's downloads (pip from PyPI, apt) trust what this host trusts: machines whose egress
# goes through a TLS-inspecting proxy have its CA in the host bundle only. The bundle is
# bind-mounted over the base's for the RUN steps; a build-time volume is never committed.
image_bud() {
  local ca_bundle=${PIP_CERT:-${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}}
  local trust=()
  [ -f "$ca_bundle" ] && trust=(--volume "$ca_bundle:/etc/ssl/certs/ca-certificates.crt:ro")
  buildah bud --isolation chroot --pull=never --network host "${trust[@]}" \
    --build-arg "BASE_IMAGE=$base_image" --tag "$3" \
    --file "$1" "$2" >&2
}

# image_export IMAGE OUT: IMAGE pushed as a docker-archive to OUT (named <prefix>-<key>.tar),
# written aside and renamed, so a reader never sees half an archive. This archive and the one
# before it with the same prefix stay (a test of another session may still be importing that one);
# older ones go, and so do the images no tag names any more.
image_export() {
  local image=$1 out=$2 prefix
  prefix=$(basename "$out" | sed 's/-[^-]*\.tar$//')
  tmp=$(mktemp "$CACHE/.$prefix.XXXXXX.tar")
  trap 'rm -f "$tmp"' EXIT
  rm -f "$tmp"
  buildah push --quiet "$image" "docker-archive:$tmp:$image" >&2
  mv "$tmp" "$out"
  # shellcheck disable=SC2012 # our own names (<prefix>-<hex key>.tar): ls -t orders by age
  local archives
  archives=$(ls -t "$CACHE/$prefix"-*.tar)
  tail -n +3 <<<"$archives" | xargs -r rm -f
  buildah rmi --prune >/dev/null 2>&1 || true
}

# build_image SCRIPT CONTEXT DOCKERFILE IMAGE PREFIX: the whole build both scripts make. Prints
# the archive $CACHE/PREFIX-<key>.tar, where <key> (context_key.py) hashes DOCKERFILE, the files
# its COPYs read from CONTEXT, the base key, SCRIPT and this file; with that archive present a run
# only computes the key.
build_image() {
  local script=$1 context=$2 dockerfile=$3 image=$4 prefix=$5 key out started script_sum lib_sum size
  image_lock
  image_base
  script_sum=$(sha256sum <"$script")
  lib_sum=$(sha256sum <"$HERE/lib.sh")
  key=$(python3 "$HERE/context_key.py" "$context" "$dockerfile" "base=$base_key" \
    "${script##*/}=$script_sum" "lib.sh=$lib_sum")
  out=$CACHE/$prefix-$key.tar
  if [ -s "$out" ]; then
    log "reusing $out"
    echo "$out"
    return 0
  fi
  use_buildah_store
  started=$SECONDS
  image_commit_base
  log "buildah bud $dockerfile with BASE_IMAGE=$base_image"
  image_bud "$dockerfile" "$context" "$image"
  image_export "$image" "$out"
  size=$(du -m "$out" | cut -f1)
  log "built $image in $((SECONDS - started))s: $out ($size MiB)"
  echo "$out"
}
