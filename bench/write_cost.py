"""What a write costs the API server: POST against server-side apply, per kind.

At 2,000 graphs `bench.converge --profile` found a Service apply taking 942 ms on average and a
Deployment apply 205 ms, the API server at 100% CPU: the question is whether a Service costs the
API server that much more, and whether server-side apply (the operator's) costs more than POST
(the floor's). This writes N copies of the graphs' own component (DynamoComponentDeployment),
Service and Deployment (as `render` makes them for `bench.converge`'s four-service graph, names
made unique, no owner references) and of a small ConfigMap (the baseline), `--concurrency` at
once, each kind and verb in a fresh namespace, then waits until the API server is quiet again
(its follow-on work, the controller manager's EndpointSlices, ReplicaSets and pods, counted
too). Components also get a status written to N of them created beforehand, with server-side
apply (the operator's) and with a merge patch: a custom resource's write goes through its
OpenAPI schema and, for the v1beta1 watch cache, through the conversion webhook. Per kind and
verb: objects per second during the writes, and CPU seconds per 1,000 objects of the API
server, etcd, the controller manager and the conversion webhook, from the first write until
quiet. The Deployments keep their one replica: pods are what a Deployment costs a cluster (kwok
nodes run them).

    python -m bench.write_cost [--objects 1000] [--concurrency 16]

Always starts its own local control plane (it reads its processes' CPU from /proc). The last
line is `key=value` pairs.
"""

from __future__ import annotations

import argparse
import copy
import functools
import math
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import anyio
import kr8s.asyncio

from bench.converge import (
    FIELD_MANAGER,
    add_node_room,
    bench_graph,
    control_plane_cpu_seconds,
    for_each,
    process_cpu_seconds,
)
from dynamo_operator.constants import Labels
from dynamo_operator.render import render_objects
from dynamo_operator.settings import OperatorSettings
from dynamo_operator.status.component_deployment import derive_component_status
from e2e.localcluster.controlplane.ephemeral import local_cluster
from e2e.support.conversion import crds_served
from manager.app.kinds import COMPONENT
from manager.runtime.client import RestClient
from manager.runtime.kinds import CONFIG_MAP, DEPLOYMENT, NAMESPACE, SERVICE, ResourceKind

PROCESSES = ("kube-apiserver", "etcd", "kube-controller-manager", "conversion-webhook")
QUIET_CPU_PER_SECOND = 0.05
"""The API server is quiet once it uses less than this many CPU seconds a second, 3 s running."""
QUIET_LIMIT_S = 120.0


def graph_children() -> dict[ResourceKind, dict[str, Any]]:
    """The first component, Deployment and Service `render` makes for the benchmark graph."""
    graph = bench_graph("g-0000", "bench")
    objects = render_objects([graph], OperatorSettings(), default_namespace="bench").objects
    return {
        kind: next(obj for obj in objects if obj["kind"] == kind.kind)
        for kind in (COMPONENT, DEPLOYMENT, SERVICE)
    }


def numbered(template: dict[str, Any], namespace: str, index: int) -> dict[str, Any]:
    """A copy of `template` named for `index` in `namespace`, selecting only its own pods."""
    obj = copy.deepcopy(template)
    name = f"{obj['metadata']['name']}-{index:05d}"
    obj["metadata"].update(name=name, namespace=namespace)
    obj["metadata"].pop("ownerReferences", None)
    spec = obj.get("spec") or {}
    if obj["kind"] == "Service":
        spec.setdefault("selector", {})[Labels.SELECTOR] = name
    if obj["kind"] == "Deployment":
        spec["selector"]["matchLabels"][Labels.SELECTOR] = name
        spec["template"]["metadata"]["labels"][Labels.SELECTOR] = name
    return obj


def config_map_template() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "config", "labels": {"app.kubernetes.io/name": "bench"}},
        "data": {"mode": "serve", "settings": "x" * 200},
    }


async def until_quiet(apiserver_pid: int) -> None:
    quiet_for, started = 0, time.perf_counter()
    last = process_cpu_seconds(apiserver_pid)
    while quiet_for < 3 and time.perf_counter() - started < QUIET_LIMIT_S:
        await anyio.sleep(1.0)
        now = process_cpu_seconds(apiserver_pid)
        quiet_for = quiet_for + 1 if now - last < QUIET_CPU_PER_SECOND else 0
        last = now


Write = Callable[[ResourceKind, dict[str, Any]], Any]


async def measure(
    rest: RestClient,
    kind: ResourceKind,
    template: dict[str, Any],
    write: Write,
    args: argparse.Namespace,
    apiserver_pid: int,
    *,
    prepare: Write | None = None,
) -> dict[str, float]:
    """`write` each of N copies of `template`, after `prepare` (untimed) when given."""
    namespace = f"write-cost-{uuid.uuid4().hex[:6]}"
    await rest.create(NAMESPACE, {"metadata": {"name": namespace}}, field_manager=FIELD_MANAGER)
    objects = [numbered(template, namespace, index) for index in range(args.objects)]
    if prepare is not None:
        await for_each(objects, functools.partial(prepare, kind), args.concurrency)
    await until_quiet(apiserver_pid)
    before, started = control_plane_cpu_seconds(), time.perf_counter()
    await for_each(objects, functools.partial(write, kind), args.concurrency)
    written_s = time.perf_counter() - started
    await until_quiet(apiserver_pid)
    after = control_plane_cpu_seconds()
    per_thousand = 1000 / args.objects
    figures = {"per_s": args.objects / written_s}
    for name in PROCESSES:
        figures[f"{name}_cpu_s_per_1000"] = (after[name] - before[name]) * per_thousand
    return figures


async def main_async(args: argparse.Namespace) -> dict[str, float]:
    templates = {CONFIG_MAP: config_map_template(), **graph_children()}
    figures: dict[str, float] = {"objects": args.objects, "concurrency": args.concurrency}
    with (
        local_cluster("bench-write-cost-", with_lws=False) as cluster,
        crds_served(cluster.kubeconfig),
    ):
        apiserver_pid = cluster.processes["kube-apiserver"].pid
        api = await kr8s.asyncio.api(kubeconfig=str(cluster.kubeconfig))
        rest = RestClient.for_api(api)
        try:
            await add_node_room(rest, math.ceil(2 * args.objects * 1.1))
            figures.update(await measure_each(rest, templates, args, apiserver_pid))
        finally:
            await rest.transport.aclose()
    return figures


async def measure_each(
    rest: RestClient,
    templates: dict[ResourceKind, dict[str, Any]],
    args: argparse.Namespace,
    apiserver_pid: int,
) -> dict[str, float]:
    """Each kind created, then applied, and a component's status applied and merge-patched:
    the figures printed, and returned by kind and verb."""
    figures: dict[str, float] = {}

    async def create(kind: ResourceKind, obj: dict[str, Any]) -> Any:
        return await rest.create(kind, obj, field_manager=FIELD_MANAGER)

    async def apply(kind: ResourceKind, obj: dict[str, Any]) -> Any:
        return await rest.apply(kind, obj, field_manager=FIELD_MANAGER)

    async def apply_status(kind: ResourceKind, obj: dict[str, Any]) -> Any:
        identity = {key: obj[key] for key in ("apiVersion", "kind")}
        metadata = {key: obj["metadata"][key] for key in ("name", "namespace")}
        body = {**identity, "metadata": metadata, "status": component_status(obj)}
        return await rest.apply(kind, body, field_manager=FIELD_MANAGER, subresource="status")

    async def merge_status(kind: ResourceKind, obj: dict[str, Any]) -> Any:
        metadata = obj["metadata"]
        patch = {"status": component_status(obj)}
        return await rest.merge_patch(
            kind,
            metadata["namespace"],
            metadata["name"],
            patch,
            field_manager=FIELD_MANAGER,
            subresource="status",
        )

    runs: list[tuple[ResourceKind, str, Write, Write | None]] = [
        (kind, verb, write, None)
        for kind in templates
        for verb, write in (("create", create), ("apply", apply))
    ]
    if COMPONENT in templates:
        runs += [
            (COMPONENT, "status_apply", apply_status, create),
            (COMPONENT, "status_merge", merge_status, create),
        ]
    for kind, verb, write, prepare in runs:
        result = await measure(
            rest, kind, templates[kind], write, args, apiserver_pid, prepare=prepare
        )
        print(f"  {kind.kind:<25} {verb:<12} {_format(result)}", flush=True)
        label = f"{kind.kind.lower()}_{verb}"
        figures.update({f"{label}_{key}": value for key, value in result.items()})
    return figures


def component_status(dcd: dict[str, Any]) -> dict[str, Any]:
    """The status the operator writes for a component whose Deployment is not there yet."""
    live = {**dcd, "metadata": {**dcd["metadata"], "generation": 1}}
    return derive_component_status(live, [], datetime.now(UTC))


def _format(figures: dict[str, float]) -> str:
    return " ".join(f"{key}={value:.2f}" for key, value in figures.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--objects", type=int, default=1000, help="of each kind, per verb")
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    print(_format(anyio.run(main_async, args)))


if __name__ == "__main__":
    main()
