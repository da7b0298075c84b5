#!/usr/bin/env bash
# hack/kind/charts.sh install|uninstall KUBECONFIG -- the charts a user installs, on a kind cluster
# whose images images.sh loaded: LeaderWorkerSet (its chart from the sigs.k8s.io/lws module) and the
# operator's two charts, each with `--wait` (the operator Pod Ready through its probes), then the
# README's `kubectl rollout status` of the operator.
set -euo pipefail
shopt -s inherit_errexit
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=hack/control-plane/versions.env
source "$ROOT/hack/control-plane/versions.env"
# shellcheck source=hack/control-plane/go-env.sh
source "$ROOT/hack/control-plane/go-env.sh"
export KUBECONFIG=${2:?usage: $0 install|uninstall KUBECONFIG}
HELM=$DYNAMO_CACHE/helm-$HELM_VERSION-$GO_VERSION/bin/helm
LWS_SRC=$DYNAMO_CACHE/lws-$LWS_VERSION-$GO_VERSION/src
"$ROOT/hack/control-plane/build-tools.sh" >/dev/null # helm and LWS's chart: built once, then cached
K8S_BIN=$("$ROOT/hack/control-plane/build-k8s.sh" | tail -n 1)
case $1 in
  install)
    "$HELM" upgrade --install lws "$LWS_SRC/charts/lws" --namespace lws-system --create-namespace \
      --set image.manager.repository=localhost/lws --set "image.manager.tag=$LWS_VERSION" \
      --set image.manager.pullPolicy=Never --wait --timeout 5m >&2
    # --take-ownership: the e2e suites that ran before may have applied the same CRDs.
    "$HELM" upgrade --install dynamo-operator-crds "$ROOT/deploy/helm/dynamo-operator-crds" \
      --namespace default --take-ownership --wait >&2
    "$HELM" upgrade --install dynamo-operator "$ROOT/deploy/helm/dynamo-operator" \
      --namespace dynamo-system --create-namespace \
      --set controllerManager.manager.image.repository=localhost/dynamo-operator \
      --set controllerManager.manager.image.tag=dev \
      --set controllerManager.manager.image.pullPolicy=Never --wait --timeout 5m >&2
    "$K8S_BIN/kubectl" -n dynamo-system rollout status deployment/dynamo-operator-controller-manager \
      --timeout=5m >&2 ;;
  uninstall)
    "$HELM" uninstall dynamo-operator --namespace dynamo-system --wait >&2 || true
    "$HELM" uninstall lws --namespace lws-system --wait >&2 || true ;;
  *) echo "usage: $0 install|uninstall KUBECONFIG" >&2; exit 2 ;;
esac
