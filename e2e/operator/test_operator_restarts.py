"""The operator process stops, crashes and starts again: nothing is written twice or lost.

Each test starts its own `dynamo-operator run` processes. At steady state the operator writes
nothing; a restart on a converged graph writes nothing either (no status, no rollout); a
`kill -9` while graphs converge leaves no duplicate and no orphan once a new process has
finished the work; namespaces are deleted with or without a running operator (no finalizer); a
restart with a discovery ClusterRole (an upgrade to the chart that installs one) rebinds each
graph's account to it and deletes the account's own Role, and a restart without brings it back.
"""

from __future__ import annotations

import contextlib
import functools
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from dynamo_operator.builders import DISCOVERY_RULES
from dynamo_operator.constants import DISCOVERY_ACCOUNT_NAME
from e2e.support import kwok_only
from e2e.support.graphs import (
    USER,
    World,
    component_name,
    controller_of,
    no_namespace_terminating,
    small_graph,
)
from e2e.support.kinds import CLUSTER_ROLE, COMPONENT, GRAPH
from e2e.support.operator_process import OperatorProcess, running_operator, start_operator
from e2e.support.polling import eventually
from manager.runtime.client import NotFound, RestClient
from manager.runtime.kinds import (
    DEPLOYMENT,
    NAMESPACE,
    ROLE,
    ROLE_BINDING,
    SERVICE,
    SERVICE_ACCOUNT,
)

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

SERVICES = {"Frontend": "frontend", "Prefill": "prefill", "Decode": "decode"}
QUIET_SECONDS = 10.0
"""How long the steady state is watched for writes; the test asserts a count, not a time."""


@pytest.fixture
def log_dir(tmp_path: Path, installed_crds: list[Any]) -> Path:
    return tmp_path


@pytest.fixture
async def world(api: Any, namespace: str) -> World:
    return World(RestClient.for_api(api), namespace)


async def converge(world: World, names: list[str]) -> None:
    for name in names:
        await world.create(GRAPH, small_graph(name, SERVICES))
    await world.all_converged(names)


async def snapshot(world: World) -> dict[str, Any]:
    """What a restart must not change: every object's resourceVersion, and the Deployments'
    generation and pod template."""
    versions = {
        f"{kind.kind}/{obj['metadata']['name']}": obj["metadata"]["resourceVersion"]
        for kind in (GRAPH, COMPONENT, SERVICE)
        for obj in await world.list(kind)
    }
    templates = {
        d["metadata"]["name"]: (d["metadata"]["generation"], d["spec"]["template"])
        for d in await world.list(DEPLOYMENT)
    }
    return {"versions": versions, "templates": templates}


@kwok_only.PODS_READY
async def test_a_converged_operator_writes_nothing_and_neither_does_a_restart(
    world: World, kubeconfig: Path, log_dir: Path
) -> None:
    await no_namespace_terminating(world)
    debug = {"LOG_LEVEL": "debug"}
    with running_operator(kubeconfig, log_dir, name="first", env=debug) as first:
        await converge(world, ["steady-a", "steady-b"])
        first.wait_settled()
        converged = len(writes_in(first, world))
        await anyio.sleep(QUIET_SECONDS)  # nothing changes meanwhile: a steady state
        assert writes_in(first, world)[converged:] == []
        before = await snapshot(world)

    with running_operator(kubeconfig, log_dir, name="second", env=debug) as second:
        # Every graph and component reconciled by the new process, then nothing left to do.
        await eventually_reconciled(second, graphs=2, components=2 * len(SERVICES))
        second.wait_settled()
        assert writes_in(second, world) == [], "the restart wrote"
        assert await snapshot(world) == before


def writes_in(operator: OperatorProcess, world: World) -> list[str]:
    """The applies and status writes the operator logged in the test's namespace (what other
    tests of the session left behind in theirs, e.g. a namespace being deleted, is not ours)."""
    return [write for write in operator.logged_writes() if f" {world.namespace}/" in write]


async def eventually_reconciled(operator: OperatorProcess, *, graphs: int, components: int) -> None:
    async def done() -> bool:
        return (
            operator.reconciles("dynamographdeployment") >= graphs
            and operator.reconciles("dynamocomponentdeployment") >= components
        )

    await eventually("every object reconciled by the new process", done)


@kwok_only.PODS_READY
async def test_a_crash_while_converging_leaves_no_duplicate_and_no_orphan(
    world: World, kubeconfig: Path, log_dir: Path
) -> None:
    names = ["crash-a", "crash-b", "crash-c"]
    crashed = start_operator(kubeconfig, log_dir, name="crashed")
    try:
        crashed.wait_ready()
        for name in names:
            await world.create(GRAPH, small_graph(name, SERVICES))
        # Polled tightly: the operator may converge all three within a coarser interval.
        await eventually("a first component", lambda: world.names(COMPONENT), interval=0.02)
    finally:
        crashed.kill()
    states = [((await world.graph(name)).get("status") or {}).get("state") for name in names]
    assert states != ["successful"] * len(names), "killed after convergence: proves nothing"

    with running_operator(kubeconfig, log_dir, name="after-crash"):
        graphs = await world.all_converged(names)

    dcds = await world.list(COMPONENT)
    expected = {component_name(name, service) for name in names for service in SERVICES}
    assert sorted(d["metadata"]["name"] for d in dcds) == sorted(expected)
    uids = {g["metadata"]["uid"] for g in graphs}
    assert all((controller_of(d) or {}).get("uid") in uids for d in dcds), "orphan DCD"
    dcd_uids = {d["metadata"]["uid"] for d in dcds}
    for kind in (DEPLOYMENT, SERVICE):
        children = await world.list(kind)
        assert sorted(c["metadata"]["name"] for c in children) == sorted(expected)
        assert all((controller_of(c) or {}).get("uid") in dcd_uids for c in children), kind.kind


@pytest.fixture
async def two_namespaces(api: Any) -> AsyncIterator[list[World]]:
    """Two namespaces of the test's own (it deletes them; whatever is left is deleted after)."""
    rest = RestClient.for_api(api)
    names = [f"delete-ns-{purpose}-{uuid.uuid4().hex[:6]}" for purpose in ("running", "stopped")]
    for name in names:
        body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
        await rest.create(NAMESPACE, body, field_manager=USER)
    yield [World(rest, name) for name in names]
    for name in names:
        with contextlib.suppress(NotFound):
            await rest.delete(NAMESPACE, None, name)


async def delete_namespace(world: World) -> None:
    await world.rest.delete(NAMESPACE, None, world.namespace)

    async def gone() -> bool:
        return await world.get(NAMESPACE, world.namespace) is None

    await eventually(f"namespace {world.namespace} deleted", gone, within=180)


@kwok_only.PODS_READY
async def test_namespaces_are_deleted_with_or_without_the_operator(
    two_namespaces: list[World], kubeconfig: Path, log_dir: Path
) -> None:
    running, stopped = two_namespaces
    with running_operator(kubeconfig, log_dir) as operator:
        for world in two_namespaces:
            await world.create(GRAPH, small_graph("doomed", SERVICES))
        for world in two_namespaces:
            await world.converged("doomed")
        errors = operator.metric_sum("controller_runtime_reconcile_errors_total")
        await delete_namespace(running)
        operator.wait_settled()
        # The graph's children go away before it does; it does not fight the deletion.
        assert operator.metric_sum("controller_runtime_reconcile_errors_total") == errors

    await delete_namespace(stopped)


@pytest.fixture
async def discovery_cluster_role(api: Any) -> AsyncIterator[str]:
    """A ClusterRole with the discovery rules, as the chart installs it (deleted after)."""
    rest = RestClient.for_api(api)
    name = f"e2e-discovery-{uuid.uuid4().hex[:6]}"
    role = {
        "apiVersion": CLUSTER_ROLE.api_version,
        "kind": CLUSTER_ROLE.kind,
        "metadata": {"name": name},
        "rules": list(DISCOVERY_RULES),
    }
    await rest.create(CLUSTER_ROLE, role, field_manager=USER)
    yield name
    with contextlib.suppress(NotFound):
        await rest.delete(CLUSTER_ROLE, None, name)


async def test_a_discovery_cluster_role_given_at_a_restart_replaces_the_accounts_own_role(
    world: World, kubeconfig: Path, log_dir: Path, discovery_cluster_role: str
) -> None:
    account = DISCOVERY_ACCOUNT_NAME

    async def bound_to(kind: str, name: str, role_exists: bool) -> dict[str, Any] | None:
        binding = await world.get(ROLE_BINDING, f"{account}-binding")
        role = await world.get(ROLE, f"{account}-role")
        reference = (binding or {}).get("roleRef") or {}
        bound = (reference.get("kind"), reference.get("name")) == (kind, name)
        return binding if bound and (role is not None) == role_exists else None

    own_role = functools.partial(bound_to, "Role", f"{account}-role", True)
    with running_operator(kubeconfig, log_dir, name="own-roles"):
        await world.create(GRAPH, small_graph("rebound", SERVICES))
        await eventually("the account's own Role", own_role)
    owner = await world.get(SERVICE_ACCOUNT, account)
    assert owner is not None

    flag = f"--discovery-cluster-role-name={discovery_cluster_role}"
    with running_operator(kubeconfig, log_dir, flag, name="cluster-role"):
        binding = await eventually(
            "the binding to the ClusterRole, the Role deleted",
            lambda: bound_to("ClusterRole", discovery_cluster_role, False),
        )
    assert [ref["uid"] for ref in binding["metadata"]["ownerReferences"]] == [
        owner["metadata"]["uid"]
    ]
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": account, "namespace": world.namespace}
    ]

    with running_operator(kubeconfig, log_dir, name="own-roles-again"):
        await eventually("the Role back", own_role)
