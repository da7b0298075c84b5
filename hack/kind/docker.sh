#!/usr/bin/env bash
# hack/kind/docker.sh start|stop|env|clusters -- a private dockerd for kind, and the host put back
# after it.
#
# No init system runs services here, so dockerd is started by hand, all of its state in two places:
# images in $DYNAMO_CACHE/kind/docker (kept: the node image and the layer cache make a warm run
# fast) and everything of one run in $KIND_RUN (socket, pid, exec root; removed at stop). `env`
# prints the DOCKER_HOST to export, `clusters` the kind clusters it holds. Clients reach it only
# through that socket.
#
# What a run changes on the host, saved by `start` in $KIND_RUN/before/ and put back by `stop`:
# sysctls the kubelet in a node writes host-wide (vm.overcommit_memory, kernel.panic, ...),
# /lib/modules (docker creates it as a mount source for the nodes), docker0, nft tables docker's
# probing creates, and docker's cgroup directories. `stop` then lists what still differs.
set -euo pipefail
shopt -s inherit_errexit
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=hack/lib/common.sh
source "$HERE/../lib/common.sh"
stop_on_failure "kind/docker.sh ${1:-}"
drop_kind_lock   # dockerd outlives this script, and may outlive a killed run
DYNAMO_CACHE=${DYNAMO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dynamo-operator}   # as go-env.sh
KIND_RUN=${KIND_RUN:-/run/dynamo-kind}
DATA=$DYNAMO_CACHE/kind/docker
SOCK=$KIND_RUN/docker.sock
export DOCKER_HOST=unix://$SOCK   # this script's own docker commands
BEFORE=$KIND_RUN/before
SYSCTLS="vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops
  kernel.keys.root_maxkeys kernel.keys.root_maxbytes net.ipv4.ip_forward net.netfilter.nf_conntrack_max"
log() { echo "kind/docker: $*" >&2; }

# The host facts a run may change, one file each (also what the host-restore test compares).
snapshot() {
  local dir=$1; mkdir -p "$dir"
  # A fresh machine has no nft: without it the table list would fail (under pipefail, silently).
  ensure_packages nft=nftables
  local s value
  for s in $SYSCTLS; do
    value=$(sysctl -n "$s" 2>/dev/null) || value=absent
    echo "$s=$value"
  done >"$dir/sysctls"
  if [ -e /lib/modules ]; then echo present; else echo absent; fi >"$dir/lib-modules"
  nft list tables 2>/dev/null | sort >"$dir/nft-tables"
  ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | sort >"$dir/links"
  find /sys/fs/cgroup -mindepth 2 -maxdepth 2 -type d | sort >"$dir/cgroups"
}

running() {
  local pid
  [ -S "$SOCK" ] && [ -f "$KIND_RUN/dockerd.pid" ] || return 1
  pid=$(<"$KIND_RUN/dockerd.pid") # no newline at its end: `read` would fail
  kill -0 "$pid" 2>/dev/null
}

start() {
  if running; then log "already running ($SOCK)"; return 0; fi
  ensure_packages dockerd=docker.io nft=nftables
  mkdir -p "$KIND_RUN" "$DATA"
  [ -d "$BEFORE" ] || snapshot "$BEFORE"   # a restart after a crash keeps the first snapshot
  # --iptables=false etc.: kind needs none of docker's NAT (the API server is published on
  # 127.0.0.1 by docker-proxy) and the host's firewall stays untouched. --dns: the host's own
  # resolver (docker would fall back to public ones when it cannot use a loopback resolver).
  local dns
  dns=$(awk '$1 == "nameserver" && $2 !~ /^127\./ {print "--dns " $2}' /etc/resolv.conf)
  log "starting dockerd (data $DATA, run $KIND_RUN)"
  # shellcheck disable=SC2086 # $dns: zero or more "--dns IP" pairs
  setsid dockerd --data-root "$DATA" --exec-root "$KIND_RUN/exec" -H "unix://$SOCK" \
    --pidfile "$KIND_RUN/dockerd.pid" --iptables=false --ip6tables=false --ip-forward=false \
    --ip-masq=false --oom-score-adjust=0 $dns \
    --add-runtime "dynamo-runc=$HERE/runc-wrapper" --default-runtime dynamo-runc \
    >"$KIND_RUN/dockerd.log" 2>&1 </dev/null &
  local ready=0
  for _ in $(seq 100); do
    docker version >/dev/null 2>&1 && { ready=1; break; }
    sleep 0.2
  done
  if [ "$ready" = 0 ]; then
    tail -n 20 "$KIND_RUN/dockerd.log" >&2; log "dockerd did not start"; return 1
  fi
  log "dockerd ready"
  # Containers in $DATA now are a dead dockerd's (a killed run's): their clusters' networking died
  # with it (a node restarted here answered "no route to host"), so they go and kind makes anew.
  local left; left=$(docker ps -aq)
  [ -z "$left" ] || log "removing the containers of a dockerd that died: ${left//$'\n'/ }"
  remove_containers
}

# Containers and networks go (the node image stays in $DATA for the next run).
remove_containers() {
  docker ps -aq | xargs -r docker rm -f -v >/dev/null
  docker network ls --filter type=custom -q | xargs -r docker network rm >/dev/null
}

stop() {
  # A dockerd killed with its run leaves its containers' processes running (a kind node's init,
  # kubelet and API server, with nobody to stop them) and its containers, networks and bridge in
  # its state: the processes are killed, then dockerd started again removes the rest (start).
  if ! running && [ -e "$KIND_RUN/dockerd.pid" ]; then
    log "the dockerd of an earlier run died; removing what it left"
    kill_contained
    start
  fi
  if running; then
    remove_containers
    local pid; pid=$(cat "$KIND_RUN/dockerd.pid")
    log "stopping dockerd ($pid)"
    kill "$pid"
    for _ in $(seq 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  fi
  # dockerd's own containerd (and any shim) outlives it for a moment: wait, then insist.
  local left pids
  for _ in $(seq 50); do left=$(ours); [ -z "$left" ] && break; sleep 0.2; done
  read -r -d '' -a pids <<<"$left" || true
  [ ${#pids[@]} = 0 ] || kill -9 "${pids[@]}" 2>/dev/null || true
  kill_contained
  # Before restore's comparison: a network namespace mounted here holds its veth on the host.
  { grep -F -e " $KIND_RUN" -e " $DATA/" /proc/mounts || true; } | awk '{print $2}' | sort -r \
    | xargs -r -n1 umount -l
  restore
  rm -rf --one-file-system "$KIND_RUN"
}

# PIDs of processes started for this run (dockerd, its containerd and shims name $KIND_RUN).
ours() { pgrep -f -- "$KIND_RUN/" || true; }

# The cgroup directories of docker and of the nodes' kubelets (/sys/fs/cgroup/pids/docker, ...)
# made since `start`'s snapshot.
new_cgroups() {
  find /sys/fs/cgroup -mindepth 2 -maxdepth 2 -type d | sort >"$KIND_RUN/cgroups-now"
  comm -13 "$BEFORE/cgroups" "$KIND_RUN/cgroups-now" \
    | { grep -E '/(docker|kubelet|kubepods)[^/]*$' || true; }
}

# SIGKILL to every process still in those cgroups.
kill_contained() {
  [ -d "$BEFORE" ] || return 0
  local dirs pids
  dirs=$(new_cgroups)
  [ -n "$dirs" ] || return 0
  # shellcheck disable=SC2086 # $dirs: one directory per line, none with a space
  pids=$({ find $dirs -name cgroup.procs -exec cat {} + 2>/dev/null || true; } | sort -u)
  [ -n "$pids" ] || return 0
  log "killing the processes left in the containers' cgroups: ${pids//$'\n'/ }"
  # shellcheck disable=SC2086 # $pids: one pid per line
  kill -9 $pids 2>/dev/null || true
}

restore() {
  [ -d "$BEFORE" ] || return 0
  local name value current
  while IFS='=' read -r name value; do
    [ "$value" = absent ] && continue
    current=$(sysctl -n "$name")
    [ "$current" = "$value" ] || sysctl -q -w "$name=$value"
  done <"$BEFORE/sysctls"
  ip link show docker0 >/dev/null 2>&1 && ! grep -qx docker0 "$BEFORE/links" && ip link del docker0
  # Leaf-first: a cgroup directory goes only when empty, so a process still in one shows up below.
  new_cgroups | while read -r dir; do
    find "$dir" -depth -type d -exec rmdir {} + 2>/dev/null || true; done
  nft list tables | sort >"$KIND_RUN/nft-tables-now"
  comm -13 "$BEFORE/nft-tables" "$KIND_RUN/nft-tables-now" | while read -r _ family table; do
    nft delete table "$family" "$table"; done
  if grep -qx absent "$BEFORE/lib-modules" && [ -d /lib/modules ]; then rmdir /lib/modules; fi
  snapshot "$KIND_RUN/after"
  local diffs; diffs=$(cd "$KIND_RUN" && diff -r before after || true)
  if [ -n "$diffs" ]; then log "host differs from before the run:"; echo "$diffs" >&2; fi
}

# The kind clusters whose containers this dockerd holds (none when it does not run).
clusters() {
  running || return 0
  docker ps -a --filter label=io.x-k8s.kind.cluster \
    --format '{{.Label "io.x-k8s.kind.cluster"}}' | sort -u
}

case ${1:-} in
  start) start ;;
  clusters) clusters ;;
  stop) stop ;;
  env) echo "export DOCKER_HOST=unix://$SOCK" ;;
  snapshot) snapshot "$2" ;;
  *) echo "usage: $0 start|stop|env|clusters|snapshot DIR" >&2; exit 2 ;;
esac
