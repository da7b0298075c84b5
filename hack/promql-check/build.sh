#!/usr/bin/env bash
# Builds (or finds in the cache) hack/promql-check and prints the binary's path on stdout; progress
# goes to stderr. The binary lives in $DYNAMO_CACHE/promql-check-<hash>-<goversion>/, where <hash>
# covers go.mod, go.sum and the sources: any change builds anew, a warm run builds nothing. Only
# the promql engine, its storage interface and the scrape parser are compiled, not the Prometheus
# server (see hack/README.md).
set -euo pipefail
shopt -s inherit_errexit
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../control-plane/go-env.sh"
hash=$(cd "$HERE" && cat go.mod go.sum ./*.go | sha256sum | cut -c1-16)
dir="$DYNAMO_CACHE/promql-check-$hash-$GO_VERSION"
if [ ! -f "$dir/.complete" ]; then
  exec 9>"$DYNAMO_CACHE/.promql-check.lock"
  flock 9
  if [ ! -f "$dir/.complete" ]; then
    echo "promql-check: go build (first time only)" >&2
    mkdir -p "$dir"
    (cd "$HERE" && go build -trimpath -ldflags "-s -w" -o "$dir/promql-check" .)
    echo '[]' | "$dir/promql-check" -scrape "0=/dev/null" >/dev/null || {
      echo "error: promql-check does not run" >&2; exit 1; }
    touch "$dir/.complete"
  fi
fi
echo "$dir/promql-check"
