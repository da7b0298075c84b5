#!/usr/bin/env bash
# hack/kind/cluster.sh create|delete NAME -- one kind cluster from our node image
# (build-node-image.sh), on the dockerd of docker.sh (DOCKER_HOST set). `create` writes the
# cluster's kubeconfig to $KIND_RUN/kubeconfig-NAME and prints its path; one cluster per machine
# (the kubelet's sysctls are host-wide).
set -euo pipefail
shopt -s inherit_errexit
HERE=$(cd "$(dirname "$0")" && pwd)
KIND_RUN=${KIND_RUN:-/run/dynamo-kind}
: "${DOCKER_HOST:?start hack/kind/docker.sh and export DOCKER_HOST first}"
NAME=${2:?usage: $0 create|delete NAME}
KIND=$("$HERE/build-tools.sh" | tail -n 1)/bin/kind
KUBECONFIG_FILE=$KIND_RUN/kubeconfig-$NAME
case $1 in
  create)
    if ! "$KIND" get clusters 2>/dev/null | grep -qx "$NAME"; then
      image=$("$HERE/build-node-image.sh" | tail -n 1)
      "$KIND" create cluster --name "$NAME" --image "$image" --config "$HERE/cluster.yaml" \
        --kubeconfig "$KUBECONFIG_FILE" --wait 180s >&2
    fi
    "$KIND" get kubeconfig --name "$NAME" >"$KUBECONFIG_FILE"
    echo "$KUBECONFIG_FILE" ;;
  delete)
    "$KIND" delete cluster --name "$NAME" >&2
    rm -f "$KUBECONFIG_FILE" ;;
  *) echo "usage: $0 create|delete NAME" >&2; exit 2 ;;
esac
