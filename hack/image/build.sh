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
#      the base key, this script and lib.sh (the steps it shares with build-dynamo.sh); with that
#      archive present a run only computes the key.
#
# buildah's store lives in $DYNAMO_CACHE/image/buildah, never in the repository. One build at a
# time: a second caller waits on a lock and then reuses the first one's archive.
# Needs root (debootstrap, chroot); installs buildah and debootstrap from Debian when missing.
set -euo pipefail
shopt -s inherit_errexit
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/hack/image
IMAGE=localhost/dynamo-operator:dev
CACHE=${DYNAMO_CACHE:-$HOME/.cache/dynamo-operator}/image
STORE=$CACHE/buildah
mkdir -p "$CACHE"
# shellcheck source=hack/image/lib.sh
. "$HERE/lib.sh"
log() { printf 'image/build.sh: %s\n' "$*" >&2; }

build_image "$HERE/build.sh" "$ROOT" "$ROOT/Dockerfile" "$IMAGE" dynamo-operator-dev
