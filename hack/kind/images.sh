#!/usr/bin/env bash
# hack/kind/images.sh NAME -- builds the images the kind tests run and loads them into cluster NAME:
#   localhost/dynamo-operator:dev  `docker build` of the repository's Dockerfile with BASE_IMAGE a
#                                  local base (hack/image/base.sh's Debian root: python:3.11-slim
#                                  cannot be pulled here), docker's layer cache making reruns fast;
#   localhost/lws:$LWS_VERSION     our lws-controller build (hack/control-plane/build-tools.sh);
#   localhost/dynamo-cpu:dev       hack/image/build-dynamo.sh's archive (real Dynamo on CPU).
set -euo pipefail
shopt -s inherit_errexit
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# shellcheck source=hack/control-plane/versions.env
source "$ROOT/hack/control-plane/versions.env"
# shellcheck source=hack/control-plane/go-env.sh
source "$ROOT/hack/control-plane/go-env.sh"
NAME=${1:?usage: $0 NAME}
KIND=${KIND:-$("$HERE/build-tools.sh" | tail -n 1)/bin/kind}   # KIND: an installed kind instead
export DOCKER_BUILDKIT=0
log() { echo "kind/images: $*" >&2; }
heavy() { nice -n 19 ionice -c3 "$@"; }
t() { local s=$SECONDS; "$@"; log "$* took $((SECONDS - s))s"; }

operator_image() {
  local base_tar key base ctx
  base_tar=$("$ROOT/hack/image/base.sh" | tail -n 1)
  key=$(basename "$base_tar" .tar); key=${key#base-}
  base=localhost/dynamo-operator-base:$key
  if ! docker image inspect "$base" >/dev/null 2>&1; then
    # The root, plus this host's CA bundle: pip in the build reaches PyPI through whatever this
    # host trusts (a TLS-inspecting proxy here). The base is local and never shipped.
    ctx=$(mktemp -d)
    docker import --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      --change 'ENV LANG=C.UTF-8' --change 'CMD ["python3"]' "$base_tar" "$base-root" >/dev/null
    cp /etc/ssl/certs/ca-certificates.crt "$ctx/"
    printf 'FROM %s\nCOPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt\n' "$base-root" >"$ctx/Dockerfile"
    docker build -q -t "$base" "$ctx" >/dev/null
    rm -rf "$ctx"
  fi
  heavy docker build -q --network host --build-arg "BASE_IMAGE=$base" -t localhost/dynamo-operator:dev "$ROOT" >/dev/null
}

lws_image() {
  local ctx; ctx=$(mktemp -d)
  "$ROOT/hack/control-plane/build-tools.sh" >/dev/null 2>&1
  cp "$DYNAMO_CACHE/lws-$LWS_VERSION-$GO_VERSION/bin/lws-controller" "$ctx/manager"
  # The chart runs /manager as non-root.
  printf 'FROM scratch\nCOPY manager /manager\nUSER 65532:65532\nENTRYPOINT ["/manager"]\n' >"$ctx/Dockerfile"
  docker build -q -t "localhost/lws:$LWS_VERSION" "$ctx" >/dev/null
  rm -rf "$ctx"
}

t operator_image
t lws_image
dynamo_tar=$("$ROOT/hack/image/build-dynamo.sh" | tail -n 1)
t "$KIND" load docker-image --name "$NAME" localhost/dynamo-operator:dev "localhost/lws:$LWS_VERSION" >&2
t "$KIND" load image-archive --name "$NAME" "$dynamo_tar" >&2
