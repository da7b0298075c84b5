"""The control plane misbehaves while `dynamo-operator run` converges graphs: the API server
restarts, or etcd is compacted (older resourceVersions are 410 Gone for every watch). Nothing is
lost: the graphs converge, and a change made afterwards reaches the children.

One operator process per test: an operator that lived through one disruption backs its watches
off for up to 30 s at the next (client-go's reflector backoff, reset after two quiet minutes), a
wait the second test would inherit. The tests need the local control plane.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from e2e.support.graphs import (
    World,
    check_converged_children,
    main_env,
    no_namespace_terminating,
    small_graph,
)
from e2e.support.kinds import COMPONENT, GRAPH
from e2e.support.operator_process import OperatorProcess, running_operator
from e2e.support.polling import eventually
from manager.runtime.client import TransportError
from manager.runtime.kinds import DEPLOYMENT

pytestmark = [pytest.mark.e2e, pytest.mark.anyio, pytest.mark.local_control_plane]

SERVICES = {"Frontend": "frontend", "Prefill": "prefill", "Decode": "decode"}
FIRST_WATCH_BACKOFF = 0.8
"""client-go's reflector backoff starts at 0.8 s, stretched by up to 100 % jitter."""


@pytest.fixture
def operator(
    kubeconfig: Path, installed_crds: list[Any], tmp_path: Path
) -> Iterator[OperatorProcess]:
    with running_operator(kubeconfig, tmp_path) as process:
        yield process


async def disrupt_while_converging(
    world: World, operator: OperatorProcess, disruption: Callable[[], object]
) -> None:
    """Two graphs created, the disruption, then a change to one of them: both converge and
    the change reaches its Deployments."""
    await no_namespace_terminating(world)
    for name in ("first", "second"):
        await world.create(GRAPH, small_graph(name, SERVICES))
    await anyio.to_thread.run_sync(disruption)
    await eventually("the API server answering again", lambda: api_answers(world))

    envs = [{"name": "HF_HOME", "value": "/models/hf"}, {"name": "AFTER", "value": "1"}]
    await world.patch(GRAPH, "first", {"spec": {"envs": envs}})

    for graph in await world.all_converged(["first", "second"]):
        await check_converged_children(world, graph)
    assert len(await world.names(COMPONENT)) == 2 * len(SERVICES)
    for deployment in await world.list(DEPLOYMENT):
        env = main_env(deployment["spec"]["template"]["spec"])
        assert ("AFTER" in env) == deployment["metadata"]["name"].startswith("first-")
    await eventually("the operator ready", lambda: anyio.to_thread.run_sync(operator.is_ready))


async def api_answers(world: World) -> bool:
    try:
        await world.list(GRAPH)
    except (TransportError, OSError):
        return False
    return True


async def test_an_api_server_restart_while_converging_loses_nothing(
    world: World, operator: OperatorProcess, control_plane: Any
) -> None:
    await disrupt_while_converging(world, operator, control_plane.restart_apiserver)
    check_outage_noticed_and_failures_retried(operator.logs())


def check_outage_noticed_and_failures_retried(records: list[dict[str, Any]]) -> None:
    """The operator said when the API server stopped answering and when it was ready again,
    and every key that failed in between was retried then, not left to its backoff (which
    every failed attempt of the outage had doubled). The log names up to 10 keys a controller:
    this test's two graphs have 2 and 6."""
    messages = [record["msg"] for record in records]
    lost = messages.index("API server not answering; waiting until it is ready again")
    back = messages.index("API server ready again", lost)
    assert records[back]["unavailable_seconds"] > 0
    failed = {
        (record["controller"], f"{record['namespace']}/{record['name']}")
        for record in records[lost:back]
        if record["msg"] == "reconciler error"
    }
    retried = {
        (record["controller"], key)
        for record in records[back:]
        if record["msg"] == "retrying what failed while the API server was away"
        for key in record["sample"]
    }
    assert failed <= retried, f"failed in the outage, not retried at its end: {failed - retried}"
    # A watch that fails again once the server is back (custom resources answer 429 a moment
    # longer than /readyz) backs off from the first step, not from what the outage grew it to:
    # its n-th failure since then waits at most the n-th step of a fresh backoff.
    failures_since_back: dict[str, int] = {}
    too_long = []
    for record in records[back:]:
        if record["msg"] == "list or watch failed, backing off":
            step = failures_since_back[record["resource"]] = (
                failures_since_back.get(record["resource"], 0) + 1
            )
            if record["retry_in"] > 2 * FIRST_WATCH_BACKOFF * 2 ** (step - 1):
                too_long.append((record["resource"], step, record["retry_in"]))
    assert not too_long, f"(resource, failures since the return, wait): {too_long}"


async def test_an_etcd_compaction_while_converging_loses_nothing(
    world: World, operator: OperatorProcess, control_plane: Any
) -> None:
    await disrupt_while_converging(world, operator, control_plane.compact_etcd)
