# shellcheck shell=bash
# Sourced by the build scripts: every Go download and compile result lives under one cache root,
# outside the repository, so `rm -rf ~/.cache/dynamo-operator` cleans everything.
DYNAMO_CACHE=${DYNAMO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dynamo-operator}
export GOMODCACHE=${DYNAMO_GOMODCACHE:-$DYNAMO_CACHE/gomod}
export GOCACHE=${DYNAMO_GOCACHE:-$DYNAMO_CACHE/gobuild}
# -modcacherw: module cache deletable; -buildvcs=false: the wrapper is not a VCS checkout of its own.
export GOFLAGS="-modcacherw -buildvcs=false"
export CGO_ENABLED=0
mkdir -p "$DYNAMO_CACHE"
command -v go >/dev/null || { echo "error: no Go toolchain on PATH; the local control plane is built from Go modules" >&2; exit 1; }
# shellcheck disable=SC2034 # read by the scripts that source this file
GO_VERSION=$(go env GOVERSION)
