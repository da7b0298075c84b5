# shellcheck shell=bash
# Sourced by the scripts of hack/ (and .ci/run): what every entry script needs so that it
# works alone on a fresh machine and fails where it fails.
#
# Every script also starts with `set -euo pipefail` and `shopt -s inherit_errexit` (set -e holds
# inside $(...) too), and never hides a command's failure inside another command's arguments:
# `cmd "$(step)"` runs cmd even when step failed, so the step is assigned first
# (`out=$(step)`, then `cmd "$out"`). tests/hack/test_shell_scripts.py checks all of it.

# stop_on_failure NAME: when a command fails and the script stops (set -e), say which and where,
# in one line on stderr, so the first error shown is the step that failed.
stop_on_failure() {
  # shellcheck disable=SC2016 # expanded when the trap runs
  trap 'echo "'"$1"': failed (exit $?) at line $LINENO: $BASH_COMMAND" >&2' ERR
}

# ensure_packages WHAT=PACKAGE...: apt-get install the Debian PACKAGEs whose WHAT is missing, WHAT
# being a command looked up on PATH or an absolute path (a CNI plugin is a file, not a command).
# A fresh machine's package lists may be missing or stale: they are updated once, only when the
# install fails. A package dpkg lists as installed whose files are gone is reinstalled. Needs root.
ensure_packages() {
  local pair what package missing=()
  for pair in "$@"; do
    what=${pair%%=*}
    package=${pair#*=}
    if [[ $what == /* ]]; then
      [[ -e $what ]] && continue
    elif command -v "$what" >/dev/null; then
      continue
    fi
    [[ " ${missing[*]} " == *" $package "* ]] || missing+=("$package")
  done
  ((${#missing[@]} > 0)) || return 0
  if ((EUID != 0)); then
    echo "hack: ${missing[*]} missing; installing Debian packages needs root" >&2
    return 1
  fi
  echo "hack: apt-get install ${missing[*]}" >&2
  local install=(apt-get install -y -q --no-install-recommends --reinstall
    -o DPkg::Lock::Timeout=600 "${missing[@]}")
  if ! DEBIAN_FRONTEND=noninteractive "${install[@]}" >&2; then
    apt-get update -q -o DPkg::Lock::Timeout=600 >&2
    DEBIAN_FRONTEND=noninteractive "${install[@]}" >&2
  fi
}

# project_python NAME: print the Python that has the project's packages (`pip install -e
# '.[test]'`): $PYTHON, else the repository's .venv, else python3 on PATH (an activated virtual
# environment's). When it lacks them (sudo leaves the virtual environment out of PATH), one line
# on stderr names the missing module and what to do, and the status is 1: never a traceback.
project_python() {
  local root python missing
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  python=${PYTHON:-}
  if [[ -z $python ]]; then
    if [[ -x $root/.venv/bin/python ]]; then python=$root/.venv/bin/python; else python=python3; fi
  fi
  if ! missing=$(PYTHONPATH="$root" "$python" -c 'import e2e.localcluster, manager.app.cli' 2>&1); then
    echo "$1: $python lacks the project's packages (${missing##*$'\n'}): run it with the Python" \
      "you ran \`pip install -e '.[test]'\` into (PYTHON=, or the activated virtual environment;" \
      "under sudo, keep its PATH)" >&2
    return 1
  fi
  echo "$python"
}

# hold_kind_lock NAME: one kind run at a time on this machine (hack/kind-up.sh, hack/kind-down.sh,
# hack/test-kind). An flock on $KIND_RUN.lock, held until the script exits: a run that is killed
# frees it, so what it left behind is known to be nobody's. The scripts such a run calls inherit
# its hold (DYNAMO_KIND_LOCKED); one that starts a daemon drops its copy first (drop_kind_lock), or
# a dockerd that outlives a killed run would keep the machine locked.
hold_kind_lock() {
  [[ -n ${DYNAMO_KIND_LOCKED:-} ]] && return 0
  local lock=${KIND_RUN:-/run/dynamo-kind}.lock holder
  exec {DYNAMO_KIND_LOCK_FD}>>"$lock"
  if ! flock -n "$DYNAMO_KIND_LOCK_FD"; then
    holder=$(cat "$lock" 2>/dev/null) || true
    echo "$1: another kind run holds $lock (${holder:-its pid unknown}); wait for it to end" >&2
    return 1
  fi
  echo "$$ $1" >"$lock"
  export DYNAMO_KIND_LOCKED=$$ DYNAMO_KIND_LOCK_FD
}

# drop_kind_lock: closes this shell's copy of the lock's file descriptor (the run that took the
# lock keeps its own, and with it the lock), so that nothing this shell starts holds it.
drop_kind_lock() {
  if [[ -n ${DYNAMO_KIND_LOCK_FD:-} ]]; then exec {DYNAMO_KIND_LOCK_FD}>&-; fi
}
