# Sourced by hack/image/*.sh.

# ensure_command COMMAND PACKAGE: install PACKAGE from Debian when COMMAND is missing (as root),
# refreshing apt's lists once if they are too old or empty to find it.
ensure_command() {
  command -v "$1" >/dev/null && return 0
  printf 'image: installing %s from Debian\n' "$2" >&2
  local install=(apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=600 "$2")
  if ! DEBIAN_FRONTEND=noninteractive "${install[@]}" >&2; then
    apt-get update -q -o DPkg::Lock::Timeout=600 >&2
    DEBIAN_FRONTEND=noninteractive "${install[@]}" >&2
  fi
}
