#!/usr/bin/env bash
# Builds etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kubectl at the pinned
# versions from the committed wrapper module, into
#   $DYNAMO_CACHE/k8s-<K8S_VERSION>-<goversion>/bin
# A bin/.complete marker (written last, after every binary answered --version) makes a warm run a no-op
# and an interrupted build start again. Prints the bin directory as its last line.
set -euo pipefail
shopt -s inherit_errexit
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/versions.env"
source "$HERE/go-env.sh"
OUT="$DYNAMO_CACHE/k8s-$K8S_VERSION-$GO_VERSION"
BIN="$OUT/bin"
if [ -f "$BIN/.complete" ]; then echo "build-k8s: cached, nothing to build" >&2; echo "$BIN"; exit 0; fi
grep -Eq "^(require)?[[:space:]]*k8s.io/kubernetes $K8S_VERSION( |$)" "$HERE/go.mod" || {
  echo "error: hack/control-plane/go.mod is not for k8s.io/kubernetes $K8S_VERSION; run hack/control-plane/gen-wrapper.sh" >&2; exit 1; }

echo "build-k8s: building Kubernetes $K8S_VERSION with $GO_VERSION into $BIN (cold: ~15-30 min on 2 cores)" >&2
mkdir -p "$BIN"
rm -f "$BIN/.complete"
MINOR=$(echo "$K8S_VERSION" | cut -d. -f2)
NOW=$(date -u +%Y-%m-%dT%H:%M:%SZ)
# Stamp the version like upstream's hack/lib/version.sh so /version reports v1.X.Y, not v0.0.0-master.
LDFLAGS="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  LDFLAGS="$LDFLAGS -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$MINOR"
  LDFLAGS="$LDFLAGS -X $pkg.gitTreeState=clean -X $pkg.buildDate=$NOW"
done
cd "$HERE"
# One go build for the Kubernetes commands shares the compilation of their common packages.
go build -trimpath -ldflags "$LDFLAGS" -o "$BIN/" \
  k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl
# etcd at exactly the version k8s.io/kubernetes pins (go install would name this binary "server").
go build -trimpath -ldflags "-s -w" -o "$BIN/etcd" go.etcd.io/etcd/server/v3

for binary in kube-apiserver kube-controller-manager kube-scheduler etcd; do
  "$BIN/$binary" --version >/dev/null 2>&1 || { echo "error: build produced no working $binary" >&2; exit 1; }
done
"$BIN/kubectl" version --client >/dev/null || { echo "error: build produced no working kubectl" >&2; exit 1; }
touch "$BIN/.complete"
apiserver_version=$("$BIN/kube-apiserver" --version)
# Not `| head -n 1`: under pipefail, etcd killed by SIGPIPE when head exits would fail the build.
etcd_version=$("$BIN/etcd" --version)
etcd_version=${etcd_version%%$'\n'*}
echo "build-k8s: done: $apiserver_version, $etcd_version" >&2
echo "$BIN"
