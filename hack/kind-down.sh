#!/usr/bin/env bash
# hack/kind-down.sh [name] -- deletes hack/kind-up.sh's cluster, stops its dockerd and puts the host
# back as docker.sh found it (sysctls, /lib/modules, docker0, nft tables, cgroup directories).
set -euo pipefail
shopt -s inherit_errexit
ROOT=$(cd "$(dirname "$0")/.." && pwd)
docker_env=$("$ROOT/hack/kind/docker.sh" env)
eval "$docker_env"
[ -S "${DOCKER_HOST#unix://}" ] && "$ROOT/hack/kind/cluster.sh" delete "${1:-dynamo}" || true
"$ROOT/hack/kind/docker.sh" stop
