#!/usr/bin/env bash
# hack/kind-down.sh [name] -- deletes hack/kind-up.sh's cluster, stops its dockerd and puts the host
# back as docker.sh found it (sysctls, /lib/modules, docker0, nft tables, cgroup directories).
set -euo pipefail
shopt -s inherit_errexit
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=hack/lib/common.sh
source "$ROOT/hack/lib/common.sh"
stop_on_failure hack/kind-down.sh
hold_kind_lock hack/kind-down.sh
NAME=${1:-dynamo}
docker_env=$("$ROOT/hack/kind/docker.sh" env)
eval "$docker_env"
clusters=$("$ROOT/hack/kind/docker.sh" clusters)
! grep -qx "$NAME" <<<"$clusters" || "$ROOT/hack/kind/cluster.sh" delete "$NAME"
"$ROOT/hack/kind/docker.sh" stop
