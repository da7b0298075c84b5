"""A cluster for a one-off program (a benchmark): `$KUBECONFIG`, else a fresh local one."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from e2e.localcluster.build import ensure_binaries
from e2e.localcluster.controlplane.cluster import LocalCluster


@contextmanager
def kubeconfig_or_local_cluster(prefix: str) -> Iterator[Path]:
    """Yield `$KUBECONFIG` when set; otherwise start a local control plane (without
    LeaderWorkerSet) in a temp dir named with `prefix`, and stop it on exit."""
    if os.environ.get("KUBECONFIG"):
        yield Path(os.environ["KUBECONFIG"])
        return
    with local_cluster(prefix, with_lws=False) as cluster:
        yield cluster.kubeconfig


@contextmanager
def local_cluster(prefix: str, *, with_lws: bool) -> Iterator[LocalCluster]:
    """A fresh local control plane in a temp dir named with `prefix`, stopped on exit: for a
    program that restarts its API server or compacts its etcd (a chaos benchmark)."""
    workdir = Path(tempfile.mkdtemp(prefix=prefix))
    cluster = LocalCluster.create(
        ensure_binaries(), workdir, die_with_parent=True, with_lws=with_lws
    )
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()
