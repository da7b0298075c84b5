#!/usr/bin/env bash
# Builds cert-manager's controller and cainjector (CERT_MANAGER_VERSION, from the wrapper module in
# cert-manager/: cert-manager's own cmd/* modules are not served by the module proxy) into
#   $DYNAMO_CACHE/cert-manager-<version>-<hash>-<goversion>/bin
# where <hash> covers the wrapper's go.mod, go.sum and sources, and links the module's source beside
# it (<dir>/src): its CRDs are <dir>/src/deploy/crds/*.yaml, the manifests of that version. Only
# the SelfSigned and CA issuers are compiled (cold build 2-5 min on 2 cores; see hack/README.md).
# A .complete marker makes a warm run a no-op. Prints the directory as its last line.
set -euo pipefail
shopt -s inherit_errexit
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/versions.env"
source "$HERE/go-env.sh"
WRAPPER="$HERE/cert-manager"
MODULE=github.com/cert-manager/cert-manager
grep -Eq "^(require)?[[:space:]]*$MODULE $CERT_MANAGER_VERSION( |$)" "$WRAPPER/go.mod" || {
  echo "error: hack/control-plane/cert-manager/go.mod does not require $MODULE $CERT_MANAGER_VERSION" >&2; exit 1; }
hash=$(cd "$WRAPPER" && cat go.mod go.sum ./*/*.go | sha256sum | cut -c1-12)
DIR="$DYNAMO_CACHE/cert-manager-$CERT_MANAGER_VERSION-$hash-$GO_VERSION"
# build.sh holds its own lock; this one also covers a direct call (the e2e fixture's).
exec 8>"$DYNAMO_CACHE/.cert-manager.lock"
flock 8
if [ ! -f "$DIR/bin/.complete" ]; then
  echo "build-cert-manager: go build $MODULE $CERT_MANAGER_VERSION controller + cainjector into $DIR/bin" >&2
  mkdir -p "$DIR/bin"
  (cd "$WRAPPER" && go build -trimpath -ldflags "-s -w" -o "$DIR/bin/" ./controller ./cainjector)
  mv -f "$DIR/bin/controller" "$DIR/bin/cert-manager-controller"
  mv -f "$DIR/bin/cainjector" "$DIR/bin/cert-manager-cainjector"
  for binary in cert-manager-controller cert-manager-cainjector; do
    "$DIR/bin/$binary" --help >/dev/null 2>&1 || { echo "error: $binary does not run" >&2; exit 1; }
  done
  touch "$DIR/bin/.complete"
fi
if [ ! -d "$DIR/src/deploy/crds" ]; then
  src=$(cd "$WRAPPER" && go mod download -json "$MODULE@$CERT_MANAGER_VERSION" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
  ln -sfn "$src" "$DIR/src"
  ls "$DIR/src/deploy/crds/"*.yaml >/dev/null || { echo "error: no CRDs in $src/deploy/crds" >&2; exit 1; }
fi
echo "build-cert-manager: ready in $DIR" >&2
echo "$DIR"
