#!/usr/bin/env bash
# hack/image/build-dynamo.sh -- the Dynamo test image localhost/dynamo-cpu:dev (ai-dynamo 1.6.1
# from PyPI on CPU: frontend, mocker and the LoRA test engine of hack/image/dynamo-cpu), built
# without Docker or a registry the way build.sh builds the operator image. The last stdout line is
# the path of a docker-archive tar that `ctr -n k8s.io images import` (or `docker load`) accepts.
#
#   1. the base: the operator image's (hack/image/base.sh, Debian bookworm with python3), committed
#      once into buildah's store;
#   2. the image: `buildah bud` of hack/image/dynamo-cpu/Dockerfile over that directory (pip reaches
#      PyPI, apt the Debian mirror);
#   3. the archive: $DYNAMO_CACHE/image/dynamo-cpu-dev-<key>.tar, where <key>
#      (hack/image/context_key.py) hashes that Dockerfile, its .dockerignore, every file its COPYs
#      read (the engine), the base key, this script and lib.sh; with that archive present a run
#      only computes the key.
#
# Shares buildah's store ($DYNAMO_CACHE/image/buildah) and lock with build.sh: one image build at
# a time. Dependencies are pinned in the Dockerfile, so a cached archive stays valid.
# Needs root (debootstrap, chroot); installs buildah and debootstrap from Debian when missing.
set -euo pipefail
shopt -s inherit_errexit
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CONTEXT=$HERE/dynamo-cpu
IMAGE=localhost/dynamo-cpu:dev
CACHE=${DYNAMO_CACHE:-$HOME/.cache/dynamo-operator}/image
STORE=$CACHE/buildah
mkdir -p "$CACHE"
# shellcheck source=hack/image/lib.sh
. "$HERE/lib.sh"
log() { printf 'image/build-dynamo.sh: %s\n' "$*" >&2; }

build_image "$HERE/build-dynamo.sh" "$CONTEXT" "$CONTEXT/Dockerfile" "$IMAGE" dynamo-cpu-dev
