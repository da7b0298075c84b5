"""End-to-end fixtures: a real Kubernetes API server for every test in ``e2e/``.

By default the session starts the local control plane from ``e2e/localcluster`` (building its
binaries first if the cache lacks them; a failed build fails the tests loudly, it never skips them).
With ``DYNAMO_E2E_KUBECONFIG=<path>`` the tests run against that cluster instead (e.g. kind);
tests that need to restart the apiserver, compact etcd or reach a webhook on 127.0.0.1 carry the
``local_control_plane`` marker and are deselected there with
``-m "e2e and not local_control_plane"``.

Fixtures (the cross-team contract):
- ``control_plane`` (session): ``.kubeconfig``, ``.server``, ``.restart_apiserver()``,
  ``.compact_etcd()``; sets ``os.environ["KUBECONFIG"]``.
- ``kubeconfig`` (session): the kubeconfig path.
- ``namespace`` (function): a fresh namespace, deleted after the test.
- ``kr8s_api`` (session): a synchronous kr8s client for that cluster.
- ``api`` (function): an asyncio kr8s client, its transport closed after the test.
- ``installed_crds`` (session): the CRDs of the CRD chart
  (``deploy/helm/dynamo-operator-crds/generated``) installed and Established (as read then);
  installing is idempotent, so several suites of one session share them. On the local control
  plane they come with ``conversion_server`` (session), the conversion webhook their two versions
  need (``e2e/support/conversion.py``).

A webhook server for the local apiserver can use a certificate from the cluster's own CA:
``control_plane.local.pki.issue_serving_cert(dir, name)`` (and ``pki.ca.cert`` as caBundle).
Every namespace has the ``kube-root-ca.crt`` ConfigMap (published by the controller-manager), as in
any real cluster.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import kr8s
import kr8s.asyncio
import pytest
import yaml

from e2e.localcluster import ControlPlane, LocalCluster, ensure_binaries
from e2e.support.conversion import (
    ConversionServer,
    InClusterConversionServer,
    conversion_configured,
)
from e2e.support.crds import install_crds
from e2e.support.graphs import World
from e2e.support.namespaces import scratch_namespace
from e2e.support.operator_image import IMAGE
from e2e.support.operator_process import OperatorProcess, running_operator
from manager.runtime.client import RestClient

# Fixtures of the support modules for the tests that ask for them by name (module- or
# session-scoped, started only when asked for): the real node, the build service on it and the two
# image archives.
pytest_plugins = [
    "e2e.support.real_node",
    "e2e.support.build_service",
    "e2e.support.operator_image",
    "e2e.support.dynamo_image",
]

EXTERNAL_KUBECONFIG_ENV = "DYNAMO_E2E_KUBECONFIG"
_WORKDIR_PREFIX = "dynamo-e2e-control-plane-"


# The kind path's own tests (e2e/kind/) need the cluster `hack/test-kind` makes (charts installed,
# images loaded) or the host after it: collected only when it runs them.
KIND_ENV = "DYNAMO_E2E_KIND"
collect_ignore = [] if os.environ.get(KIND_ENV) else ["kind"]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "local_control_plane: needs the local control plane (restart, etcd, 127.0.0.1 webhooks)",
    )
    config.addinivalue_line(
        "markers",
        "kwok_only(reason): needs kwok's fake nodes (deselected on kind by hack/test-kind); "
        "the reason says why",
    )
    config.addinivalue_line(
        "markers", "kind: needs hack/test-kind's cluster with the charts installed (e2e/kind/)"
    )
    config.addinivalue_line(
        "markers", "kind_host: checks the host after hack/test-kind removed its cluster and dockerd"
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        marker = item.get_closest_marker("kwok_only")
        if marker is not None and not marker.kwargs.get("reason"):
            raise pytest.UsageError(f"{item.nodeid}: kwok_only needs reason=... (why kwok)")


@pytest.fixture(scope="session")
def control_plane() -> Iterator[ControlPlane]:
    external = os.environ.get(EXTERNAL_KUBECONFIG_ENV)
    if external:
        path = Path(external)
        os.environ["KUBECONFIG"] = str(path)
        yield ControlPlane(path, _current_server(path), local=None)
        return
    binaries = ensure_binaries(show_progress=True)
    LocalCluster.remove_abandoned(Path(tempfile.gettempdir()), _WORKDIR_PREFIX)
    workdir = Path(tempfile.mkdtemp(prefix=_WORKDIR_PREFIX))
    cluster = LocalCluster.create(binaries, workdir, die_with_parent=True)
    # Belt and braces: pytest runs fixture teardown on failures and Ctrl-C, atexit covers an
    # interpreter exit that skips it, and PR_SET_PDEATHSIG covers a killed interpreter.
    atexit.register(cluster.stop)
    try:
        cluster.start()
        os.environ["KUBECONFIG"] = str(cluster.kubeconfig)
        yield ControlPlane(cluster.kubeconfig, cluster.server, local=cluster)
    finally:
        cluster.stop()
        atexit.unregister(cluster.stop)
        shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture(scope="session")
def kubeconfig(control_plane: ControlPlane) -> Path:
    return control_plane.kubeconfig


@pytest.fixture(scope="session")
def kr8s_api(kubeconfig: Path) -> kr8s.Api:
    """A synchronous kr8s client for the harness's own work (namespaces, smoke tests)."""
    return kr8s.api(kubeconfig=str(kubeconfig))


@pytest.fixture
async def api(kubeconfig: Path) -> AsyncIterator[Any]:
    api = await kr8s.asyncio.api(kubeconfig=str(kubeconfig))
    yield api
    await RestClient.for_api(api).transport.aclose()


@pytest.fixture(scope="session")
def conversion_server(
    control_plane: ControlPlane, kr8s_api: kr8s.Api, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ConversionServer | None]:
    """The conversion webhook the CRDs' two versions need: on the local control plane a process
    on 127.0.0.1 (yielded, a test may stop and start it); on an external cluster None."""
    install_crds(kr8s_api)
    if control_plane.local is None:
        # An external cluster (kind before the charts): served in the cluster, unless an
        # operator installed there already configures it (its CA is in the CRDs).
        in_cluster = None if conversion_configured(kr8s_api) else InClusterConversionServer(IMAGE)
        if in_cluster is not None:
            in_cluster.start(kr8s_api)
        try:
            yield None
        finally:
            if in_cluster is not None:
                in_cluster.stop(kr8s_api)
        return
    server = ConversionServer(control_plane.kubeconfig, tmp_path_factory.mktemp("conversion"))
    server.start(kr8s_api)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def installed_crds(kr8s_api: kr8s.Api, conversion_server: ConversionServer | None) -> list[Any]:
    return list(install_crds(kr8s_api))


@pytest.fixture
def namespace(kr8s_api: kr8s.Api, request: pytest.FixtureRequest) -> Iterator[str]:
    # A readable prefix from the test name helps when reading apiserver logs.
    with scratch_namespace(kr8s_api, request.node.name) as name:
        yield name


@pytest.fixture(scope="module")
def operator(
    kubeconfig: Path, installed_crds: list[Any], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[OperatorProcess]:
    """`dynamo-operator run` as a process, one per test module (a module may override it)."""
    with running_operator(kubeconfig, tmp_path_factory.mktemp("operator")) as process:
        yield process


@pytest.fixture
async def world(api: Any, namespace: str, operator: OperatorProcess) -> World:
    """The test's namespace, seen at kubectl level, with the operator running."""
    return World(RestClient.for_api(api), namespace)


def _current_server(kubeconfig: Path) -> str:
    config = yaml.safe_load(kubeconfig.read_text())
    context_name = config.get("current-context")
    context = next(c["context"] for c in config["contexts"] if c["name"] == context_name)
    cluster = next(c["cluster"] for c in config["clusters"] if c["name"] == context["cluster"])
    return str(cluster["server"])
