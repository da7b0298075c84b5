#!/usr/bin/env bash
# Builds (or finds in the cache) everything the opt-in real node needs, into
#   $DYNAMO_CACHE/node-<K8S_VERSION>-<hash>-<goversion>/{bin,images}
# where <hash> covers the wrapper's go.mod/go.sum and node/ (pause.c, the probe, the image writer):
#   bin/kubelet, bin/kube-proxy   from the wrapper module (k8s.io/kubernetes/cmd/...), like build-k8s.sh
#   images/pause.tar              localhost/pause:local, a static pause of ours (node/pause.c, gcc)
#   images/probe.tar              localhost/realnode-probe:local, a static Go test program (node/probe)
# and installs the Debian packages the node runs (containerd, runc, containernetworking-plugins,
# iptables), with apt-get, only when their files are missing. Images are docker-archive tars written
# by node/image_tar.py (no Docker, no registry). A .complete marker makes a warm run a no-op.
# Prints the directory as its last line. Not run by build.sh: only the real-node mode needs it.
set -euo pipefail
shopt -s inherit_errexit
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/versions.env"
source "$HERE/go-env.sh"
NODE_SRC="$HERE/node"

# shellcheck source=hack/lib/common.sh
source "$HERE/../lib/common.sh"
# The Debian packages the node runs, by file (not `command -v`: iproute2's /usr/sbin/bridge is not
# the CNI plugin); apt-get only for what is missing.
ensure_packages /usr/bin/containerd=containerd /usr/bin/ctr=containerd \
  /usr/bin/containerd-shim-runc-v2=containerd /usr/sbin/runc=runc \
  /usr/lib/cni/bridge=containernetworking-plugins /usr/lib/cni/host-local=containernetworking-plugins \
  /usr/lib/cni/portmap=containernetworking-plugins /usr/lib/cni/loopback=containernetworking-plugins \
  /usr/sbin/iptables=iptables /usr/sbin/ip6tables=iptables /usr/sbin/iptables-save=iptables \
  /usr/bin/gcc=gcc /usr/include/stdio.h=libc6-dev

hash=$(cd "$HERE" && cat go.mod go.sum node/pause.c node/image_tar.py node/probe/go.mod node/probe/*.go \
  | sha256sum | cut -c1-12)
DIR="$DYNAMO_CACHE/node-$K8S_VERSION-$hash-$GO_VERSION"
exec 7>"$DYNAMO_CACHE/.node.lock"
if ! flock -n 7; then echo "build-node: another build-node holds the lock; waiting" >&2; flock 7; fi
if [ -f "$DIR/.complete" ]; then echo "build-node: cached in $DIR" >&2; echo "$DIR"; exit 0; fi
grep -Eq "^[[:space:]]*k8s.io/kubernetes/cmd/kubelet$" "$HERE/go.mod" || {
  echo "error: hack/control-plane/go.mod has no kubelet tool line; run hack/control-plane/gen-wrapper.sh" >&2; exit 1; }

mkdir -p "$DIR/bin" "$DIR/images"
echo "build-node: building kubelet and kube-proxy $K8S_VERSION into $DIR/bin (~2-4 min after build-k8s.sh)" >&2
MINOR=$(echo "$K8S_VERSION" | cut -d. -f2)
NOW=$(date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS="-s -w"   # the same version stamp as build-k8s.sh
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  LDFLAGS="$LDFLAGS -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$MINOR"
  LDFLAGS="$LDFLAGS -X $pkg.gitTreeState=clean -X $pkg.buildDate=$NOW"
done
(cd "$HERE" && go build -trimpath -ldflags "$LDFLAGS" -o "$DIR/bin/" \
  k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kube-proxy)
for binary in kubelet kube-proxy; do
  "$DIR/bin/$binary" --version 2>/dev/null | grep -q "$K8S_VERSION" \
    || { echo "error: build produced no working $binary" >&2; exit 1; }
done

echo "build-node: pause and probe images into $DIR/images" >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -Os -static -o "$work/pause" "$NODE_SRC/pause.c"
(cd "$NODE_SRC/probe" && go build -trimpath -ldflags "-s -w" -o "$work/probe" .)
python3 "$NODE_SRC/image_tar.py" --tag localhost/pause:local --entrypoint /pause \
  --out "$DIR/images/pause.tar" "$work/pause:/pause" >&2
python3 "$NODE_SRC/image_tar.py" --tag localhost/realnode-probe:local --entrypoint /probe \
  --out "$DIR/images/probe.tar" "$work/probe:/probe" >&2
touch "$DIR/.complete"
kubelet_version=$("$DIR/bin/kubelet" --version)
images=$(cd "$DIR/images" && echo *)
echo "build-node: done: $kubelet_version, images $images" >&2
echo "$DIR"
