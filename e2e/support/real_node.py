"""A real node for end-to-end tests: its own in-cluster control plane plus kubelet + containerd +
kube-proxy (``e2e/localcluster/realnode/real_node.py``), for tests that need Pods to really run.

Opt-in: only modules that request the fixture start it (``e2e/conftest.py`` registers this module
as a pytest plugin)::

    from e2e.support.real_node import RealNodeCluster

    def test_something(real_node: RealNodeCluster) -> None: ...

The fixture (module scope) is a SEPARATE cluster from the session's ``control_plane`` (which stays
kwok-only, on 127.0.0.1): never mix their kubeconfigs. It needs root and builds the node's binaries
and images on first use (``hack/control-plane/build-node.sh``); a machine that cannot run it fails
the test with the reason, it never skips. One real node fits on a machine (a flock): a second
session asking for one waits for it (up to ``LOCK_WAIT``), then fails with who holds it. The node
is always stopped and the host restored at the end, also when a test fails; a harness killed
outright is cleaned up by the next start.

``RealNodeCluster`` (what the fixture yields):

- ``kubeconfig`` (admin), ``server``; ``api`` a synchronous kr8s client for it;
- ``node_name`` (``real-node``) and ``pod_placement()``: the ``nodeSelector`` and toleration of
  the node's ``realnode=true:NoSchedule`` taint to merge into a Pod spec (kwok's fake nodes
  ``kwok-node-0/1`` take everything else, so workloads whose images cannot run here stay there);
- ``import_image(tar)``: a docker-archive or OCI tar into the node's containerd (the images'
  own names, e.g. ``localhost/dynamo-operator:dev``); Pods use ``imagePullPolicy: Never``;
- ``PROBE_IMAGE``, already imported: ``/probe serve [PORT]`` (HTTP, ``/healthz``),
  ``/probe get URL``, ``/probe whoami`` (in-cluster SelfSubjectReview); static, no shell;
- ``create_namespace(prefix)``: a namespace whose ``default`` ServiceAccount exists (with
  ServiceAccount admission on, a Pod created before it is refused);
- ``pod_logs(namespace, pod, container)``; ``node`` (the ``RealNode``: ``timings``, ``rss_bytes()``)
  and ``cluster`` (the ``LocalCluster``).

Pods on the real node: no cluster DNS (use ClusterIPs or the ``KUBERNETES_SERVICE_*`` variables);
give processes that ignore SIGTERM a short ``terminationGracePeriodSeconds``.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import kr8s
import pytest
from kr8s.objects import Namespace, ServiceAccount

from e2e.localcluster import LocalCluster, ensure_binaries, wait_for
from e2e.localcluster.build import ensure_node_binaries
from e2e.localcluster.realnode.real_node import RealNode, pod_placement

PROBE_IMAGE = "localhost/realnode-probe:local"
_WORKDIR_PREFIX = "dynamo-e2e-real-node-"
LOCK_WAIT = 900.0
"""Seconds to wait for another session's real node (parallel pytest workers run the real-node
modules in turn: each module holds the node for about a minute)."""


@dataclass
class RealNodeCluster:
    cluster: LocalCluster
    node: RealNode
    api: kr8s.Api
    sysctls_before: dict[str, str]
    """The host's sysctls as the node found them (the teardown restores them)."""

    @property
    def kubeconfig(self) -> Path:
        return self.cluster.kubeconfig

    @property
    def server(self) -> str:
        return self.cluster.server

    @property
    def node_name(self) -> str:
        return self.node.name

    @staticmethod
    def pod_placement() -> dict[str, Any]:
        return pod_placement()

    def import_image(self, tar: Path) -> str:
        return self.node.import_image(tar)

    def create_namespace(self, prefix: str) -> str:
        name = f"{prefix}-{uuid.uuid4().hex[:6]}"
        Namespace({"metadata": {"name": name}}, api=self.api).create()

        def default_service_account() -> bool:
            try:
                ServiceAccount.get("default", namespace=name, api=self.api)
            except kr8s.NotFoundError:
                return False
            return True

        wait_for(f"the default ServiceAccount of {name}", default_service_account)
        return name

    def pod_logs(self, namespace: str, pod: str, container: str | None = None) -> str:
        """A container's log, fetched by the apiserver from the kubelet (as kubectl logs)."""
        query = f"?container={container}" if container else ""
        path = f"/api/v1/namespaces/{namespace}/pods/{pod}/log{query}"
        return self.cluster.admin_client().get_text(path)


@contextmanager
def running_real_node(*, audit: bool = False) -> Iterator[RealNodeCluster]:
    """Build (cached) and start an in-cluster control plane and the real node; stop both.
    ``audit``: the API server logs ServiceAccounts' requests (``cluster.audit_log``)."""
    binaries = ensure_binaries(show_progress=True)
    node_binaries = ensure_node_binaries(show_progress=True)
    tmp = Path(tempfile.gettempdir())
    LocalCluster.remove_abandoned(tmp, _WORKDIR_PREFIX)
    RealNode.reap_abandoned()
    workdir = Path(tempfile.mkdtemp(prefix=_WORKDIR_PREFIX))
    cluster = LocalCluster.create(
        binaries, workdir, die_with_parent=True, with_lws=True, in_cluster=True, audit=audit
    )
    node = RealNode(cluster, node_binaries)
    # The same belt and braces as the session control plane: atexit for an interpreter exit that
    # skips teardown, PR_SET_PDEATHSIG (die_with_parent) and the next start's reap for a kill.
    atexit.register(cluster.stop)
    try:
        cluster.start()
        node.start(wait_for_lock=LOCK_WAIT)
        yield RealNodeCluster(
            cluster, node, kr8s.api(kubeconfig=str(cluster.kubeconfig)), node.sysctls_before
        )
    finally:
        try:
            node.stop()
        finally:
            cluster.stop()
            atexit.unregister(cluster.stop)
            shutil.rmtree(workdir, ignore_errors=True)
    if node.remaining:
        raise AssertionError(f"the real node left on the host: {node.remaining}")


@pytest.fixture(scope="module", name="real_node")
def real_node_fixture() -> Iterator[RealNodeCluster]:
    with running_real_node() as running:
        yield running
