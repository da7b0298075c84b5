#!/usr/bin/env bash
# hack/kind-up.sh [cluster-name] -- for machines WITH Docker: the kind equivalent of
# `hack/local-cluster up`. Creates (or reuses) a kind cluster, installs our CRDs from deploy/helm/dynamo-operator-crds/generated and
# LeaderWorkerSet (its Helm chart from the same Go module version the local control plane uses),
# builds the operator image and loads it into the cluster. Last line: export KUBECONFIG=<path>.
# Needs: docker, kind, kubectl, go (for the LWS chart and helm), on PATH.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NAME=${1:-dynamo}
IMAGE=${DYNAMO_IMAGE:-dynamo-operator:dev}
KUBECONFIG_FILE=${KUBECONFIG_FILE:-$HOME/.kube/kind-$NAME}
source "$ROOT/hack/control-plane/versions.env"
say() { echo "kind-up: $*" >&2; }

if ! kind get clusters 2>/dev/null | grep -qx "$NAME"; then
  say "creating kind cluster $NAME"
  kind create cluster --name "$NAME" --wait 180s >&2
fi
mkdir -p "$(dirname "$KUBECONFIG_FILE")"
kind get kubeconfig --name "$NAME" > "$KUBECONFIG_FILE"
export KUBECONFIG=$KUBECONFIG_FILE

if compgen -G "$ROOT/deploy/helm/dynamo-operator-crds/generated/*.yaml" >/dev/null; then
  say "installing CRDs from deploy/helm/dynamo-operator-crds/generated"
  kubectl apply --server-side -f "$ROOT/deploy/helm/dynamo-operator-crds/generated/" >&2
  kubectl wait --for condition=Established crd --all --timeout=120s >&2
fi

say "installing LeaderWorkerSet $LWS_VERSION (chart from the sigs.k8s.io/lws module, helm $HELM_VERSION)"
"$ROOT/hack/control-plane/build-tools.sh" >&2
source "$ROOT/hack/control-plane/go-env.sh"
HELM="$DYNAMO_CACHE/helm-$HELM_VERSION-$GO_VERSION/bin/helm"
LWS_SRC="$DYNAMO_CACHE/lws-$LWS_VERSION-$GO_VERSION/src"
"$HELM" upgrade --install lws "$LWS_SRC/charts/lws" --namespace lws-system --create-namespace \
  --set image.manager.tag="$LWS_VERSION" \
  --wait --timeout 5m >&2

if [ -f "$ROOT/Dockerfile" ]; then
  say "building $IMAGE and loading it into $NAME"
  docker build -t "$IMAGE" "$ROOT" >&2
  kind load docker-image "$IMAGE" --name "$NAME" >&2
else
  say "no Dockerfile yet: skipped building the operator image"
fi
echo "export KUBECONFIG=$KUBECONFIG_FILE"
