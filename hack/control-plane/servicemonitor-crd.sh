#!/usr/bin/env bash
# Prints the path of the ServiceMonitor CRD (monitoring.coreos.com/v1) as the prometheus-operator Go
# module ships it (example/prometheus-operator-crd/), downloaded once through the Go module proxy
# into the shared module cache. The install e2e creates it so the chart's ServiceMonitor is
# rendered and accepted as on a cluster running prometheus-operator.
set -euo pipefail
shopt -s inherit_errexit
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/versions.env"
source "$HERE/go-env.sh"
module=github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR_VERSION
dir=$(cd "$DYNAMO_CACHE" && go mod download -json "$module" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
crd=$dir/example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml
[ -f "$crd" ] || { echo "error: $module has no $crd" >&2; exit 1; }
echo "$crd"
