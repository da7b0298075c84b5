"""``hack/local-cluster up|down``: a local control plane that outlives the command.

``up`` prints ``export KUBECONFIG=<path>`` as its last line (eval-able); a second ``up`` while
one is serving reuses it. ``down`` stops every process ``up`` started, by PID, and removes its
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

from .binaries import ensure_binaries
from .cluster import LocalCluster

_MIB = 1024 * 1024


def _pointer_file() -> Path:
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    root = Path(os.environ.get("DYNAMO_CACHE", cache / "dynamo-operator"))
    root.mkdir(parents=True, exist_ok=True)
    return root / "local-cluster.workdir"


def _say(message: str) -> None:
    print(f"local-cluster: {message}", file=sys.stderr, flush=True)


def up(with_lws: bool) -> int:
    binaries = ensure_binaries()
    pointer = _pointer_file()
    running = _attach(pointer)
    if running is not None and running.is_serving():
        _say(f"reusing the control plane already serving at {running.server}")
        print(f"export KUBECONFIG={running.kubeconfig}")
        return 0
    if running is not None:
        _say("a previous control plane is not serving any more; stopping what is left of it")
        _stop_and_remove(running, pointer)
    workdir = Path(tempfile.mkdtemp(prefix="dynamo-local-cluster-"))
    cluster = LocalCluster.create(binaries, workdir, die_with_parent=False, with_lws=with_lws)
    _say(f"starting etcd, kube-apiserver, controller-manager, scheduler, kwok in {workdir}")
    try:
        cluster.start()
    except BaseException:
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
    from .binaries import Binaries

    placeholder = Binaries(Path(), Path(), Path(), Path())
    return LocalCluster.attach(workdir, placeholder)


def _stop_and_remove(cluster: LocalCluster, pointer: Path) -> None:
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
    commands.add_parser("down", help="stop the cluster `up` started")
    args = parser.parse_args(argv)
    if args.command == "up":
        return up(with_lws=not args.without_lws)
    return down()


if __name__ == "__main__":
    sys.exit(main())
