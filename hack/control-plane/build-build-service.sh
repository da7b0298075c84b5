#!/usr/bin/env bash
# Builds (or finds in the cache) the build service the DynamoComponent e2e tests run on the real node:
# an OCI registry, BuildKit and kaniko, from their Go modules, and their images, into
#   $DYNAMO_CACHE/build-service-<REGISTRY_VERSION>-<BUILDKIT_VERSION>-<KANIKO_VERSION>-<hash>-<go>/
# where <hash> covers this script, node/image_tar.py and the buildkit/ and kaniko/ wrapper modules:
#   bin/registry                   github.com/distribution/distribution/v3/cmd/registry
#   bin/buildkitd, bin/buildctl    github.com/moby/buildkit/cmd/... (wrapper module buildkit/)
#   bin/executor                   github.com/chainguard-dev/kaniko/cmd/executor (wrapper kaniko/)
#   images/registry.tar            localhost/registry:<REGISTRY_VERSION>   (registry only)
#   images/buildkit.tar            localhost/buildkit:<BUILDKIT_VERSION>   (buildkitd, buildctl, runc
#                                  and its libraries, busybox: sh, tar, wget; the daemon's and the
#                                  builder Job's image)
#   images/kaniko.tar              localhost/kaniko:<KANIKO_VERSION> (/kaniko/executor, laid out
#                                  like kaniko's own image; it runs RUN steps in its own container)
#   images/tools.tar               localhost/build-tools:<busybox version> (busybox alone: sh, tar,
#                                  wget; a small base for RUN steps and download init containers)
# All static Go builds (CGO_ENABLED=0). runc is Debian's (/usr/sbin/runc, linked against libc and
# libseccomp: the image carries those libraries and the loader at their host paths); busybox is
# Debian's busybox-static. A .complete marker makes a warm run a no-op. Prints the
# directory as its last line. Not run by build.sh: only the DynamoComponent tests need it.
set -euo pipefail
shopt -s inherit_errexit
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/versions.env"
source "$HERE/go-env.sh"

# shellcheck source=hack/lib/common.sh
source "$HERE/../lib/common.sh"
# runc and busybox go into the images; htpasswd makes the registry's bcrypt password file (tests).
ensure_packages /usr/sbin/runc=runc /bin/busybox=busybox-static /usr/bin/htpasswd=apache2-utils

hash=$(cat "$0" "$HERE/node/image_tar.py" "$HERE"/buildkit/go.* "$HERE"/kaniko/go.* \
  | sha256sum | cut -c1-12)
DIR="$DYNAMO_CACHE/build-service-$REGISTRY_VERSION-$BUILDKIT_VERSION-$KANIKO_VERSION-$hash-$GO_VERSION"
exec 7>"$DYNAMO_CACHE/.build-service.lock"
if ! flock -n 7; then echo "build-build-service: another build holds the lock; waiting" >&2; flock 7; fi
if [ -f "$DIR/.complete" ]; then echo "build-build-service: cached in $DIR" >&2; echo "$DIR"; exit 0; fi

mkdir -p "$DIR/bin" "$DIR/images"
echo "build-build-service: registry $REGISTRY_VERSION, buildkit $BUILDKIT_VERSION, kaniko $KANIKO_VERSION into $DIR/bin" >&2
GOBIN="$DIR/bin" go install -trimpath -ldflags "-s -w" \
  "github.com/distribution/distribution/v3/cmd/registry@$REGISTRY_VERSION"
# BuildKit through the wrapper module buildkit/ (go install refuses its go.mod's excludes); the
# version stamp is the one its own Makefile sets.
grep -Eq "^(require)?[[:space:]]*github.com/moby/buildkit $BUILDKIT_VERSION( |$)" "$HERE/buildkit/go.mod" || {
  echo "error: hack/control-plane/buildkit/go.mod does not require buildkit $BUILDKIT_VERSION" >&2; exit 1; }
(cd "$HERE/buildkit" && go build -trimpath -o "$DIR/bin/" \
  -ldflags "-s -w -X github.com/moby/buildkit/version.Version=$BUILDKIT_VERSION" \
  github.com/moby/buildkit/cmd/buildkitd github.com/moby/buildkit/cmd/buildctl)
# kaniko: its module's version list is refused by the proxy, so go install cannot; a wrapper can.
grep -Eq "^(require)?[[:space:]]*github.com/chainguard-dev/kaniko $KANIKO_VERSION( |$)" "$HERE/kaniko/go.mod" || {
  echo "error: hack/control-plane/kaniko/go.mod does not require kaniko $KANIKO_VERSION" >&2; exit 1; }
(cd "$HERE/kaniko" && go build -trimpath -o "$DIR/bin/" \
  -ldflags "-s -w -X github.com/chainguard-dev/kaniko/pkg/version.version=$KANIKO_VERSION" \
  github.com/chainguard-dev/kaniko/cmd/executor)
"$DIR/bin/executor" version | grep -q "$KANIKO_VERSION" \
  || { echo "error: kaniko's executor does not report $KANIKO_VERSION" >&2; exit 1; }
"$DIR/bin/registry" --version | grep -q "${REGISTRY_VERSION#v}" \
  || { echo "error: the registry build does not report $REGISTRY_VERSION" >&2; exit 1; }
for binary in buildkitd buildctl; do
  "$DIR/bin/$binary" --version | grep -q "$BUILDKIT_VERSION" \
    || { echo "error: $binary does not report $BUILDKIT_VERSION" >&2; exit 1; }
done

echo "build-build-service: images into $DIR/images" >&2
# sed reads all of busybox's help: head would close the pipe early (SIGPIPE fails the pipeline).
busybox_version=$(/bin/busybox --help 2>&1 | sed -n -E '1s/^BusyBox v([0-9.]+).*/\1/p')
busybox=(--env PATH=/usr/bin:/bin --dir /tmp:1777 --dir /etc:0755 /bin/busybox:/bin/busybox)
for applet in sh tar wget cat ls echo mkdir cp rm sleep gzip env test grep; do
  busybox+=(--symlink "/bin/$applet:busybox")
done
# runc is dynamically linked: ship each library ldd names at the path the loader looks for it.
runc_libraries=()
for library in $(ldd /usr/sbin/runc | grep -oE '/[^ ]+'); do
  runc_libraries+=("$(readlink -f "$library"):$library")
done
python3 "$HERE/node/image_tar.py" --tag "localhost/build-tools:$busybox_version" --entrypoint /bin/sh \
  --out "$DIR/images/tools.tar" "${busybox[@]}" >&2
python3 "$HERE/node/image_tar.py" --tag "localhost/buildkit:$BUILDKIT_VERSION" \
  --entrypoint /usr/bin/buildkitd --out "$DIR/images/buildkit.tar" "${busybox[@]}" \
  "$DIR/bin/buildkitd:/usr/bin/buildkitd" "$DIR/bin/buildctl:/usr/bin/buildctl" \
  /usr/sbin/runc:/usr/bin/runc "${runc_libraries[@]}" >&2
python3 "$HERE/node/image_tar.py" --tag "localhost/registry:$REGISTRY_VERSION" \
  --entrypoint /usr/bin/registry --dir /tmp:1777 --dir /var/lib/registry:0755 \
  --out "$DIR/images/registry.tar" "$DIR/bin/registry:/usr/bin/registry" >&2
touch "$DIR/.complete"
# kaniko's image as its Dockerfile lays it out (without the cloud credential helpers); no shell:
# kaniko unpacks the Dockerfile's base into this container's root and runs RUN steps there.
python3 "$HERE/node/image_tar.py" --tag "localhost/kaniko:$KANIKO_VERSION" \
  --entrypoint /kaniko/executor --out "$DIR/images/kaniko.tar" \
  --env PATH=/usr/local/bin:/kaniko --env HOME=/root --env USER=root \
  --env DOCKER_CONFIG=/kaniko/.docker/ --dir /kaniko:0777 --dir /kaniko/.docker:0755 \
  --dir /workspace:0755 --dir /tmp:1777 --dir /root:0700 "$DIR/bin/executor:/kaniko/executor" >&2
images=$(cd "$DIR/images" && echo *)
echo "build-build-service: done: $images" >&2
echo "$DIR"
