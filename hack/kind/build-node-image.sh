#!/usr/bin/env bash
# hack/kind/build-node-image.sh -- kind's node image for Kubernetes $K8S_VERSION, built here from Go
# modules and Debian packages (no registry is reachable), into the kind dockerd's store
# (hack/kind/docker.sh must be running; DOCKER_HOST from `docker.sh env`). Prints the image name.
#
# The name's tag is a key over versions.env, this script, build-tools.sh, base/ and the Go version: while an image of
# that name exists a run costs one `docker image inspect`. Cold: ~2 debootstraps, the Go builds of
# build-tools.sh, kind's `build node-image` (~10 min on 2 shared cores).
#   1. binaries: the control plane's (build-k8s.sh, build-node.sh) plus build-tools.sh's;
#   2. images kubeadm and kind install, `docker build` over a debootstrap'd root or scratch;
#   3. kind's base image (base/Dockerfile) over a second root with systemd and Debian's containerd;
#   4. `kind build node-image --type file` over a tarball laid out like a Kubernetes release.
set -euo pipefail
shopt -s inherit_errexit
HERE=$(cd "$(dirname "$0")" && pwd)
CP=$HERE/../control-plane
# shellcheck source=hack/control-plane/versions.env
source "$CP/versions.env"
# shellcheck source=hack/control-plane/go-env.sh
source "$CP/go-env.sh"
# shellcheck source=hack/lib/common.sh
source "$HERE/../lib/common.sh"
stop_on_failure kind/build-node-image.sh
: "${DOCKER_HOST:?start hack/kind/docker.sh and export DOCKER_HOST first}"
log() { echo "kind/build-node-image: $*" >&2; }
heavy() { nice -n 19 ionice -c3 "$@"; }
export DOCKER_BUILDKIT=0   # dockerd 20.10's classic builder: no buildx plugin here

key=$({ cat "$CP/versions.env" "$HERE/build-node-image.sh" "$HERE/build-tools.sh" "$HERE"/base/*
  echo "$GO_VERSION"; } | sha256sum | cut -c1-12)
NODE_IMAGE=localhost/dynamo-kind-node:$key
if docker image inspect "$NODE_IMAGE" >/dev/null 2>&1; then echo "$NODE_IMAGE"; exit 0; fi
exec 8>"$DYNAMO_CACHE/.kind-node-image.lock"; flock 8
if docker image inspect "$NODE_IMAGE" >/dev/null 2>&1; then echo "$NODE_IMAGE"; exit 0; fi
started=$SECONDS
# The Debian roots below are debootstrap'd; jq rewrites the image archive's manifest.
ensure_packages debootstrap=debootstrap jq=jq

K8S_BIN=$("$CP/build-k8s.sh" | tail -n 1)
NODE_DIR=$("$CP/build-node.sh" | tail -n 1)
KIND_SRC=$(go mod download -json "sigs.k8s.io/kind@$KIND_VERSION" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
work=$(mktemp -d "${TMPDIR:-/tmp}/kind-node-image.XXXXXX")
trap 'rm -rf --one-file-system "$work"' EXIT

# A Debian root as a tar, cached by suite and package list (minbase: the rest is left out).
rootfs() {  # name packages -> prints the tar
  local name=$1 packages=$2 out mirror
  out=$DYNAMO_CACHE/kind/rootfs-$name-$(echo "bookworm $packages" | sha256sum | cut -c1-12).tar
  if [ ! -s "$out" ]; then
    mirror=$(awk '/^URIs:/ {print $2; exit} $1 == "deb" {print $2; exit}' \
      /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null || true)
    log "debootstrap $name: $packages"
    heavy debootstrap --variant=minbase --include="$packages" bookworm "$work/$name" \
      "${mirror:-http://deb.debian.org/debian}" >"$work/$name.log" 2>&1 \
      || { tail -n 20 "$work/$name.log" >&2; exit 1; }
    rm -rf "${work:?}/$name"/var/cache/apt/archives/*.deb "$work/$name"/var/lib/apt/lists/* \
      "$work/$name"/var/log/* "$work/$name"/usr/share/doc/* "$work/$name"/usr/share/man/*
    tar --numeric-owner -C "$work/$name" -cf "$out.tmp" .
    mv "$out.tmp" "$out"
    rm -rf --one-file-system "${work:?}/$name"
  fi
  echo "$out"
}
imported() {  # tar name -> a one-layer image of that root
  docker image inspect "$2" >/dev/null 2>&1 || docker import "$1" "$2" >/dev/null
  echo "$2"
}

# An image of one program over BASE (a root or scratch), as kubeadm's manifests call it.
program_image() {  # tag base binary entrypoint-json
  local ctx=$work/ctx-${RANDOM}
  mkdir -p "$ctx"; cp "$3" "$ctx/"
  printf 'FROM %s\nCOPY %s /usr/local/bin/\nENV PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\nENTRYPOINT %s\n' \
    "$2" "${3##*/}" "$4" >"$ctx/Dockerfile"
  docker build -q -t "$1" "$ctx" >/dev/null
}

log "Debian roots (cached), then the Go tools"
# Each step assigned on its own: `imported "$(rootfs ...)"` would import nothing and go on when
# the debootstrap failed, the first error showing three steps later.
tools_tar=$(rootfs tools iptables,nftables,conntrack,iproute2)
TOOLS_ROOT=$(imported "$tools_tar" "localhost/kind-tools-root:$key")
base_tar=$(rootfs base systemd,conntrack,iptables,nftables,iproute2,ethtool,util-linux,mount,kmod,libseccomp2,pigz,e2fsprogs,bash,ca-certificates,curl,jq,procps,containerd,runc,containernetworking-plugins)
BASE_ROOT=$(imported "$base_tar" "localhost/kind-base-root:$key")
TOOLS=$("$HERE/build-tools.sh" | tail -n 1)/bin
log "images kubeadm and kind need"
mkdir -p "$work/release/kubernetes/server/bin"
BIN=$work/release/kubernetes/server/bin
for c in kube-apiserver kube-controller-manager kube-scheduler; do
  program_image "registry.k8s.io/$c:$K8S_VERSION" scratch "$K8S_BIN/$c" "[\"/usr/local/bin/$c\"]"
  docker save -o "$BIN/$c.tar" "registry.k8s.io/$c:$K8S_VERSION"
done
program_image "registry.k8s.io/kube-proxy:$K8S_VERSION" "$TOOLS_ROOT" "$NODE_DIR/bin/kube-proxy" '["/usr/local/bin/kube-proxy"]'
docker load -q -i "$NODE_DIR/images/pause.tar" >/dev/null
ETCD_TAG=$("$TOOLS/kubeadm" config images list --kubernetes-version "$K8S_VERSION" | grep /etcd: | cut -d: -f2)
PAUSE=$(grep -o 'registry.k8s.io/pause:[^"]*' "$KIND_SRC/images/base/files/etc/containerd/config.toml")
program_image "registry.k8s.io/etcd:$ETCD_TAG" scratch "$K8S_BIN/etcd" '["/usr/local/bin/etcd"]'
program_image "registry.k8s.io/coredns/coredns:$COREDNS_VERSION" scratch "$TOOLS/coredns" '["/usr/local/bin/coredns"]'
docker tag localhost/pause:local "$PAUSE"
# kind's manifests name these tags (its Go constants); the helper runs `sh -c mkdir/rm`.
const() { grep -ho "docker.io/kindest/$1:[^\"]*" "$KIND_SRC"/pkg/build/nodeimage/const_*.go | head -n 1; }
LOCAL_PATH_PROVISIONER=$(const local-path-provisioner)
LOCAL_PATH_HELPER=$(const local-path-helper)
KINDNETD=$(const kindnetd)
program_image "$LOCAL_PATH_PROVISIONER" scratch "$TOOLS/local-path-provisioner" '["/usr/local/bin/local-path-provisioner"]'
docker tag "$TOOLS_ROOT" "$LOCAL_PATH_HELPER"
# kind's build insists on having its CNI image; the cluster disables kind's CNI (cluster.yaml), so
# the pause image stands in under that tag and never runs.
docker tag "$PAUSE" "$KINDNETD"
# kind loads only the four kube-*.tar archives of a release and pulls the rest; nothing can be
# pulled here, so kube-proxy.tar carries the others too: a docker archive may hold several images,
# and kind pulls no tag its `repositories` file names (read when it comes before manifest.json,
# whose first image alone kind reads). Names get docker's implicit docker.io/ as kind spells them.
docker save -o "$work/extra.tar" "registry.k8s.io/kube-proxy:$K8S_VERSION" \
  "registry.k8s.io/etcd:$ETCD_TAG" "registry.k8s.io/coredns/coredns:$COREDNS_VERSION" "$PAUSE" \
  "$LOCAL_PATH_PROVISIONER" "$LOCAL_PATH_HELPER" "$KINDNETD"
mkdir "$work/extra"
tar -C "$work/extra" -xf "$work/extra.tar"
full='def full: if (split("/")[0] | test("[.:]")) then . else "docker.io/" + . end;'
jq "$full map(.RepoTags |= map(full))" "$work/extra/manifest.json" >"$work/m"
mv "$work/m" "$work/extra/manifest.json"
jq "$full with_entries(.key |= full)" "$work/extra/repositories" >"$work/r"
mv "$work/r" "$work/extra/repositories"
layers=()
for entry in "$work/extra"/*; do
  case ${entry##*/} in repositories | manifest.json) ;; *) layers+=("${entry##*/}") ;; esac
done
tar -C "$work/extra" -cf "$BIN/kube-proxy.tar" repositories manifest.json "${layers[@]}"
cp "$TOOLS/kubeadm" "$NODE_DIR/bin/kubelet" "$K8S_BIN/kubectl" "$BIN/"
echo "$K8S_VERSION" >"$work/release/kubernetes/version"
tar -C "$work/release" -c kubernetes | heavy gzip -1 >"$work/release.tar.gz"   # kind reads only .tar.gz

log "kind's base image"
cp -r "$HERE/base" "$work/base"
cp -r "$KIND_SRC/images/base/files" "$work/base/kind-files"
cp "$TOOLS/crictl" "$work/base/"
heavy docker build -q --build-arg "ROOT=$BASE_ROOT" -t "localhost/kind-base:$key" "$work/base" >/dev/null

log "kind build node-image $NODE_IMAGE"
heavy "$TOOLS/kind" build node-image --type file "$work/release.tar.gz" \
  --base-image "localhost/kind-base:$key" --image "$NODE_IMAGE" >&2
# Only the node image is kept; what built it goes (the roots stay cached as tars).
docker image ls --format '{{.Repository}}:{{.Tag}}' | grep -v "^localhost/dynamo-kind-node:$key$" \
  | grep -E '^(registry.k8s.io|docker.io/kindest|kindest|localhost/(kind-|pause|dynamo-kind-node))' \
  | xargs -r docker rmi -f >/dev/null 2>&1 || true
docker image prune -f >/dev/null
log "built $NODE_IMAGE in $((SECONDS - started))s"
echo "$NODE_IMAGE"
