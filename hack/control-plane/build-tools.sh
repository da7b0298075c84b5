#!/usr/bin/env bash
# Builds kwok and helm with `go install module/cmd@version` (their go.mods have no replace
# directives), and the LeaderWorkerSet controller from the committed wrapper module in lws/ (plain
# `go install` fails there: the proxy refuses sigs.k8s.io/lws's version list), each into
#   $DYNAMO_CACHE/<name>-<version>-<goversion>/bin
# and links the module's source beside it (<dir>/src): kwok's Stage YAMLs and the LWS CRD ship there.
# A .complete marker per tool makes warm runs no-ops.
set -euo pipefail
shopt -s inherit_errexit
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/versions.env"
source "$HERE/go-env.sh"

install_tool() {  # name module version package-in-module binary-name-go-gives wanted-binary-name
  local name=$1 module=$2 version=$3 package=$4 built_name=$5 wanted_name=$6
  local dir="$DYNAMO_CACHE/$name-$version-$GO_VERSION"
  if [ ! -f "$dir/bin/.complete" ]; then
    mkdir -p "$dir/bin"
    if [ -f "$HERE/$name/go.mod" ]; then
      grep -Eq "^(require)?[[:space:]]*$module $version( |$)" "$HERE/$name/go.mod" || {
        echo "error: hack/control-plane/$name/go.mod does not require $module $version" >&2; exit 1; }
      echo "build-tools: go build $module/$package ($version, wrapper module $name/)" >&2
      (cd "$HERE/$name" && go build -trimpath -ldflags "-s -w" -o "$dir/bin/$wanted_name" "$module/$package")
    else
      echo "build-tools: go install $module/$package@$version" >&2
      GOBIN="$dir/bin" go install -trimpath -ldflags "-s -w" "$module/$package@$version"
      [ "$built_name" = "$wanted_name" ] || mv -f "$dir/bin/$built_name" "$dir/bin/$wanted_name"
    fi
    "$dir/bin/$wanted_name" --help >/dev/null 2>&1 || { echo "error: $wanted_name does not run" >&2; exit 1; }
    touch "$dir/bin/.complete"
  fi
  if [ ! -d "$dir/src" ]; then
    local src
    src=$(cd "$dir" && go mod download -json "$module@$version" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
    ln -sfn "$src" "$dir/src"
  fi
  echo "build-tools: $wanted_name ready in $dir/bin" >&2
}

install_tool kwok sigs.k8s.io/kwok "$KWOK_VERSION" cmd/kwok kwok kwok
install_tool helm helm.sh/helm/v3 "$HELM_VERSION" cmd/helm helm helm
install_tool lws sigs.k8s.io/lws "$LWS_VERSION" cmd cmd lws-controller
