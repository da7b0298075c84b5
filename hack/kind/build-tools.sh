#!/usr/bin/env bash
# hack/kind/build-tools.sh -- the Go programs of the kind path, built from the module proxy (no
# registry, no release downloads here) into $DYNAMO_CACHE/kind-tools-<key>-<goversion>/bin, where
# <key> hashes versions.env and this script. Prints that directory last.
#   kind, crictl (goes into the node), kubeadm (from the control plane's wrapper module, with the
#   same version stamp as the other Kubernetes binaries: kind reads the version from it), and
#   coredns and local-path-provisioner (the images kubeadm and kind install in the cluster).
set -euo pipefail
shopt -s inherit_errexit
HERE=$(cd "$(dirname "$0")" && pwd)
CP=$HERE/../control-plane
# shellcheck source=hack/control-plane/versions.env
source "$CP/versions.env"
# shellcheck source=hack/control-plane/go-env.sh
source "$CP/go-env.sh"
key=$(cat "$CP/versions.env" "$0" | sha256sum | cut -c1-12)
DIR=$DYNAMO_CACHE/kind-tools-$key-$GO_VERSION
if [ -f "$DIR/bin/.complete" ]; then echo "$DIR"; exit 0; fi
exec 8>"$DYNAMO_CACHE/.kind-tools.lock"; flock 8   # one build at a time; a waiter reuses it
if [ -f "$DIR/bin/.complete" ]; then echo "$DIR"; exit 0; fi
mkdir -p "$DIR/bin"
heavy() { nice -n 19 ionice -c3 "$@"; }   # the machine's 2 cores are shared with other work
log() { echo "kind/build-tools: $*" >&2; }

gi() { log "go install $1"; GOBIN="$DIR/bin" heavy go install -trimpath -ldflags "-s -w" "$1"; }
gi "sigs.k8s.io/kind@$KIND_VERSION"
gi "sigs.k8s.io/cri-tools/cmd/crictl@$CRICTL_VERSION"
gi "github.com/coredns/coredns@$COREDNS_VERSION"
gi "github.com/rancher/local-path-provisioner@$LOCAL_PATH_PROVISIONER_VERSION"

MINOR=$(echo "$K8S_VERSION" | cut -d. -f2)
LDFLAGS="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  LDFLAGS="$LDFLAGS -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$MINOR"
  LDFLAGS="$LDFLAGS -X $pkg.gitTreeState=clean"
done
# A copy of the wrapper module: kubeadm imports packages whose go.sum lines the wrapper lacks, and
# -mod=mod adds them (at the versions Kubernetes' go.mod pins) to the copy only.
log "go build kubeadm $K8S_VERSION (a copy of the wrapper module hack/control-plane)"
wrapper=$(mktemp -d); trap 'rm -rf "$wrapper"' EXIT
cp "$CP/go.mod" "$CP/go.sum" "$wrapper/"
(cd "$wrapper" && heavy go build -mod=mod -trimpath -ldflags "$LDFLAGS" -o "$DIR/bin/" k8s.io/kubernetes/cmd/kubeadm)
"$DIR/bin/kubeadm" version -o short | grep -qx "$K8S_VERSION"
"$DIR/bin/kind" version >/dev/null
touch "$DIR/bin/.complete"
log "ready in $DIR/bin"
echo "$DIR"
