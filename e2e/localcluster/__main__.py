"""``hack/local-cluster up|down``: a local control plane that outlives the command.

``up`` prints ``export KUBECONFIG=<path>`` as its last line (eval-able); a second ``up`` while
one is serving reuses it. ``up --real-node`` starts the control plane in in-cluster mode and adds
a real kubelet + containerd + kube-proxy node (``realnode/real_node.py``; one per machine).
``down`` stops
every process ``up`` started, by PID, undoes the real node's host changes, and removes its
directory.
The pointer to the running cluster's temp directory lives in the build cache directory.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from e2e.localcluster.build import NodeBinaries, ensure_binaries, ensure_node_binaries
from e2e.localcluster.controlplane.cluster import LocalCluster
from e2e.localcluster.realnode.real_node import RealNode

_MIB = 1024 * 1024
_STARTED_A_REAL_NODE = "real-node-started"
"""In the cluster's directory when `up --real-node` started the machine's real node: only then
does `down` stop it (the node's state is machine-wide; another session may be running one)."""


def _pointer_file() -> Path:
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    root = Path(os.environ.get("DYNAMO_CACHE", cache / "dynamo-operator"))
    root.mkdir(parents=True, exist_ok=True)
    return root / "local-cluster.workdir"


def _say(message: str) -> None:
    print(f"local-cluster: {message}", file=sys.stderr, flush=True)


def up(with_lws: bool, real_node: bool = False) -> int:
    binaries = ensure_binaries()
    node_binaries = ensure_node_binaries() if real_node else None
    pointer = _pointer_file()
    running = _attach(pointer)
    if running is not None and running.is_serving():
        if real_node and running.node_ip is None:
            _say("the running control plane has no real node; `hack/local-cluster down` first")
            return 1
        _say(f"reusing the control plane already serving at {running.server}")
        print(f"export KUBECONFIG={running.kubeconfig}")
        return 0
    if running is not None:
        _say("a previous control plane is not serving any more; stopping what is left of it")
        _stop_and_remove(running, pointer)
    workdir = Path(tempfile.mkdtemp(prefix="dynamo-local-cluster-"))
    cluster = LocalCluster.create(
        binaries, workdir, die_with_parent=False, with_lws=with_lws, in_cluster=real_node
    )
    _say(f"starting etcd, kube-apiserver, controller-manager, scheduler, kwok in {workdir}")
    try:
        cluster.start()
        if node_binaries is not None:
            (workdir / _STARTED_A_REAL_NODE).touch()
            _start_real_node(cluster, node_binaries)
    except BaseException:
        cluster.stop()
        shutil.rmtree(workdir, ignore_errors=True)
        raise
    pointer.write_text(str(workdir))
    timings = ", ".join(f"{name} {seconds:.1f}s" for name, seconds in cluster.timings.items())
    rss = cluster.rss_bytes()
    _say(f"ready at {cluster.server} ({timings})")
    _say(f"memory: {sum(rss.values()) // _MIB} MiB RSS in total; logs in {workdir / 'logs'}")
    _say(f"kubectl and etcd are in {binaries.kube_bin}; helm in {binaries.helm.parent}")
    print(f"export KUBECONFIG={cluster.kubeconfig}")
    return 0


def _start_real_node(cluster: LocalCluster, node_binaries: NodeBinaries) -> None:
    if RealNode.reap_abandoned():
        _say("removed what a killed real node had left on this machine")
    node = RealNode(cluster, node_binaries, die_with_parent=False)
    _say(f"starting the real node {node.name} (containerd, kubelet, kube-proxy) at {node.node_ip}")
    node.start()
    timings = ", ".join(f"{name} {seconds:.1f}s" for name, seconds in node.timings.items())
    rss = node.rss_bytes()
    _say(f"real node {node.name} Ready ({timings}); {sum(rss.values()) // _MIB} MiB RSS")
    _say(f"Pods run there with pod_placement(): nodeSelector kubernetes.io/hostname={node.name},")
    _say("toleration realnode=true:NoSchedule, imagePullPolicy Never; import images with")
    _say(f"  ctr --address {node.paths.containerd_socket} -n k8s.io images import IMAGE.tar")


def down() -> int:
    pointer = _pointer_file()
    cluster = _attach(pointer)
    if cluster is None:
        _say("no local control plane recorded; nothing to stop")
        pointer.unlink(missing_ok=True)
        return 0
    _stop_and_remove(cluster, pointer)
    _say(f"stopped {cluster.server} and removed {cluster.workdir}")
    return 0


def _attach(pointer: Path) -> LocalCluster | None:
    try:
        workdir = Path(pointer.read_text().strip())
    except OSError:
        return None
    # Stopping needs PIDs and paths only, not binaries: attach without triggering a build.
    from e2e.localcluster.build import Binaries

    placeholder = Binaries(Path(), Path(), Path(), Path())
    return LocalCluster.attach(workdir, placeholder)


def _stop_and_remove(cluster: LocalCluster, pointer: Path) -> None:
    started_one = (cluster.workdir / _STARTED_A_REAL_NODE).exists()
    node = RealNode.attach(cluster, NodeBinaries(Path())) if started_one else None
    if node is not None:
        node.stop()
        if node.remaining:
            _say(f"the real node left: {'; '.join(node.remaining)}")
        else:
            _say(f"stopped the real node {node.name}; host settings restored")
    cluster.stop()
    shutil.rmtree(cluster.workdir, ignore_errors=True)
    pointer.unlink(missing_ok=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hack/local-cluster", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    up_parser = commands.add_parser("up", help="build or reuse binaries, start or reuse a cluster")
    up_parser.add_argument(
        "--without-lws", action="store_true", help="skip the LeaderWorkerSet CRD and controller"
    )
    up_parser.add_argument(
        "--real-node",
        action="store_true",
        help="in-cluster API access plus one real node (kubelet, containerd, kube-proxy; root)",
    )
    commands.add_parser("down", help="stop the cluster `up` started (and its real node)")
    args = parser.parse_args(argv)
    if args.command == "up":
        return up(with_lws=not args.without_lws, real_node=args.real_node)
    return down()


if __name__ == "__main__":
    sys.exit(main())
