#!/usr/bin/env bash
# hack/kind-up.sh [name] -- a kind cluster on this machine with the operator installed as users
# install it. Needs root and Go; installs the Debian packages it uses when missing (docker.io,
# nftables, debootstrap, buildah), so it works alone on a fresh machine.
#   1. hack/kind/docker.sh start: a private dockerd (hack/kind/docker.sh stop undoes it all);
#   2. hack/kind/cluster.sh create: from our node image (hack/kind/build-node-image.sh, cached);
#   3. hack/kind/images.sh: the operator image (`docker build` of ./Dockerfile), LeaderWorkerSet
#      and the Dynamo test image, loaded into the node;
#   4. hack/kind/charts.sh install: LeaderWorkerSet and the operator's two charts (KIND_UP_CHARTS=0
#      skips it: hack/test-kind installs them after the suites that run their own operator).
# Prints the two exports (DOCKER_HOST, KUBECONFIG) last. Tear down with hack/kind-down.sh.
# A step that fails stops the script with its own message (never a later step's).
set -euo pipefail
shopt -s inherit_errexit
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=hack/lib/common.sh
source "$ROOT/hack/lib/common.sh"
stop_on_failure hack/kind-up.sh
hold_kind_lock hack/kind-up.sh
NAME=${1:-dynamo}
say() { echo "kind-up: $*" >&2; }
timed() { local s=$SECONDS; "$@"; say "${1##*/}${2:+ $2} took $((SECONDS - s))s"; }

timed "$ROOT/hack/kind/docker.sh" start
docker_env=$("$ROOT/hack/kind/docker.sh" env)
eval "$docker_env"
timed "$ROOT/hack/kind/build-node-image.sh" >/dev/null
started=$SECONDS
created=$("$ROOT/hack/kind/cluster.sh" create "$NAME")
KUBECONFIG_FILE=${created##*$'\n'}
say "cluster.sh create took $((SECONDS - started))s"
timed "$ROOT/hack/kind/images.sh" "$NAME"
[ "${KIND_UP_CHARTS:-1}" = 0 ] || timed "$ROOT/hack/kind/charts.sh" install "$KUBECONFIG_FILE"
echo "export DOCKER_HOST=$DOCKER_HOST"
echo "export KUBECONFIG=$KUBECONFIG_FILE"
