#!/usr/bin/env bash
# Builds (or finds in the cache) every binary the local control plane needs and prints where they are
# as KEY=path lines on stdout; progress goes to stderr. One builder at a time per cache (flock).
set -euo pipefail
shopt -s inherit_errexit
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/versions.env"
source "$HERE/go-env.sh"
exec 9>"$DYNAMO_CACHE/.build.lock"
if ! flock -n 9; then
  echo "build: another build holds $DYNAMO_CACHE/.build.lock; waiting for it" >&2
  flock 9
fi
K8S_BIN=$("$HERE/build-k8s.sh" | tail -1)
"$HERE/build-tools.sh" >/dev/null
CERT_MANAGER_DIR=$("$HERE/build-cert-manager.sh" | tail -1)
echo "K8S_BIN=$K8S_BIN"
echo "KWOK_DIR=$DYNAMO_CACHE/kwok-$KWOK_VERSION-$GO_VERSION"
echo "HELM_DIR=$DYNAMO_CACHE/helm-$HELM_VERSION-$GO_VERSION"
echo "LWS_DIR=$DYNAMO_CACHE/lws-$LWS_VERSION-$GO_VERSION"
echo "CERT_MANAGER_DIR=$CERT_MANAGER_DIR"
