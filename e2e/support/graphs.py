"""Graphs and the world a user sees, for the end-to-end tests of `dynamo-operator run`.

`World` reads one namespace through the API the way `kubectl get` does (objects, their fields,
status, Events) and writes the way a user does (create, merge patch, delete, with field manager
`kubectl`); the tests only ever compare what it reads. `eventually` polls for a state with a
generous timeout and never measures time. The graph manifests are the repository's: the sample
(`examples/`) and the graphs of the Dynamo operator's documentation (`tests/fixtures/graphs/`).
"""

from __future__ import annotations

import builtins
import contextlib
import copy
import json
from collections.abc import AsyncIterator, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import anyio
import yaml

from e2e.localcluster import is_condition_true
from e2e.support.kinds import COMPONENT, GRAPH, GRAPH_BETA, LEADER_WORKER_SET
from e2e.support.polling import CONVERGE_TIMEOUT, eventually
from manager.runtime.client import NotFound, RestClient
from manager.runtime.kinds import (
    DEPLOYMENT,
    EVENT,
    NAMESPACE,
    POD,
    SERVICE,
    ResourceKind,
)

T = TypeVar("T")
ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "vllm-disagg.yaml"
FIXTURES = ROOT / "tests" / "fixtures" / "graphs"
IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.7.0"
USER = "kubectl"
"""The field manager of the test's own writes: what a user's `kubectl` would be."""

SELECTOR_LABEL = "nvidia.com/selector"


# -- manifests ------------------------------------------------------------------------------------


def load_graph(path: Path, *, name: str | None = None) -> dict[str, Any]:
    """The graph of a manifest, without its namespace (the test's namespace is used)."""
    graph: dict[str, Any] = yaml.safe_load(path.read_text())
    graph["metadata"].pop("namespace", None)
    if name is not None:
        graph["metadata"]["name"] = name
    return graph


def seed_graph(file_name: str, *, name: str | None = None) -> dict[str, Any]:
    """A seed's graph (`disagg.yaml`, `llm-agg.yaml`) as a user deploys it today.

    The seeds took each service's image from the legacy `DynamoComponent` artifact, which is not
    part of the API; a pod needs one, so every service gets the sample's runtime image.
    """
    graph = load_graph(FIXTURES / file_name, name=name)
    for service in graph["spec"]["services"].values():
        main = service.setdefault("extraPodSpec", {}).setdefault("mainContainer", {})
        main.setdefault("image", IMAGE)
    return graph


def small_graph(
    name: str,
    services: Mapping[str, str] | None = None,
    *,
    replicas: int = 1,
) -> dict[str, Any]:
    """A vLLM graph of `services` (name -> componentType, default a frontend and one worker),
    each with the runtime image and `replicas` replicas: quick to converge on fake nodes."""
    services = services or {"Frontend": "frontend", "VllmWorker": "worker"}
    modules = {"frontend": "dynamo.frontend", "planner": "dynamo.planner"}
    return {
        "apiVersion": GRAPH.api_version,
        "kind": GRAPH.kind,
        "metadata": {"name": name},
        "spec": {
            "backendFramework": "vllm",
            "envs": [{"name": "HF_HOME", "value": "/models/hf"}],
            "services": {
                service: {
                    "componentType": component_type,
                    "replicas": replicas,
                    "extraPodSpec": {
                        "mainContainer": {
                            "image": IMAGE,
                            "command": [
                                "python3",
                                "-m",
                                modules.get(component_type, "dynamo.vllm"),
                            ],
                        }
                    },
                }
                for service, component_type in services.items()
            },
        },
    }


def small_beta_graph(name: str, components: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """A vLLM graph at v1beta1 of ``components`` (see ``beta_component``)."""
    return {
        "apiVersion": GRAPH_BETA.api_version,
        "kind": GRAPH_BETA.kind,
        "metadata": {"name": name},
        "spec": {"backendFramework": "vllm", "components": [dict(c) for c in components]},
    }


def beta_component(
    name: str, kind: str, command: list[str] | None = None, *args: str, **extra: Any
) -> dict[str, Any]:
    """One component as upstream's v1beta1 examples write it: a type, one replica, a ``main``
    container with the runtime image (and ``command`` and ``args`` when given), then ``extra``
    fields (``scalingAdapter={}``...)."""
    main: dict[str, Any] = {"name": "main", "image": IMAGE}
    if command:
        main["command"] = command
    if args:
        main["args"] = list(args)
    pod_template = {"spec": {"containers": [main]}}
    return {"name": name, "type": kind, "replicas": 1, "podTemplate": pod_template, **extra}


def persistent_volume(name: str, namespace: str, claim: str) -> dict[str, Any]:
    """A volume reserved for one claim (`claimRef`), so a graph's PVC binds and its pods
    schedule; the local cluster has no provisioner."""
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name},
        "spec": {
            "storageClassName": "standard",
            "capacity": {"storage": "100Gi"},
            "accessModes": ["ReadWriteOnce", "ReadWriteMany"],
            "hostPath": {"path": f"/tmp/{name}"},
            "claimRef": {"namespace": namespace, "name": claim},
        },
    }


# -- reading what the API shows -------------------------------------------------------------------


def component_name(graph: str, service: str) -> str:
    """The DCD of a service: `<dgd>-<lowercase service>`, as the spec fixes it."""
    return f"{graph}-{service.lower()}"


def controller_of(obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The ownerReference with `controller: true`, if any."""
    for reference in (obj.get("metadata") or {}).get("ownerReferences") or ():
        if reference.get("controller") is True:
            return dict(reference)
    return None


def is_controlled_by(obj: Mapping[str, Any], owner: Mapping[str, Any]) -> bool:
    reference = controller_of(obj) or {}
    return bool(
        reference.get("uid") == owner["metadata"]["uid"]
        and reference.get("kind") == owner["kind"]
        and reference.get("name") == owner["metadata"]["name"]
    )


def main_env(pod_spec: Mapping[str, Any]) -> dict[str, str | None]:
    """The main container's environment, name -> value."""
    [main] = [c for c in pod_spec["containers"] if c["name"] == "main"]
    return {entry["name"]: entry.get("value") for entry in main.get("env") or ()}


def is_pod_ready(pod: Mapping[str, Any]) -> bool:
    return is_condition_true(pod, "Ready")


def is_converged(graph: Mapping[str, Any]) -> bool:
    status = graph.get("status") or {}
    return (
        status.get("state") == "successful"
        and status.get("observedGeneration") == graph["metadata"].get("generation")
        and is_condition_true(graph, "Ready")
    )


# -- waiting and watching -------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def recorded(
    rest: RestClient, kind: ResourceKind, namespace: str
) -> AsyncIterator[list[dict[str, Any]]]:
    """Every version of the namespace's objects of `kind` written while the block runs, in
    the order the API server reports them (a watch sees each write, however brief)."""
    _, resource_version = await rest.list_all(kind, namespace)
    seen: list[dict[str, Any]] = []

    async def record() -> None:
        async with rest.watch(
            kind, namespace, resource_version=resource_version, timeout_seconds=900
        ) as events:
            async for event in events:
                if event.type in ("ADDED", "MODIFIED"):
                    seen.append(event.object)

    async with anyio.create_task_group() as group:
        group.start_soon(record)
        yield seen
        group.cancel_scope.cancel()


# -- the world, as `kubectl` shows it -------------------------------------------------------------


class World:
    """One namespace, read and written through the API as a user does."""

    def __init__(self, rest: RestClient, namespace: str) -> None:
        self.rest = rest
        self.namespace = namespace

    # reads

    async def get(self, kind: ResourceKind, name: str) -> dict[str, Any] | None:
        try:
            return await self.rest.get(kind, self.namespace if kind.namespaced else None, name)
        except NotFound:
            return None

    async def list(
        self, kind: ResourceKind, *, labels: Mapping[str, str] | None = None
    ) -> list[dict[str, Any]]:
        selector = ",".join(f"{key}={value}" for key, value in (labels or {}).items())
        items, _ = await self.rest.list_all(
            kind, self.namespace if kind.namespaced else None, label_selector=selector or None
        )
        return items

    async def names(self, kind: ResourceKind) -> set[str]:
        return {obj["metadata"]["name"] for obj in await self.list(kind)}

    async def graph(self, name: str) -> dict[str, Any]:
        graph = await self.get(GRAPH, name)
        assert graph is not None, f"DynamoGraphDeployment {name} does not exist"
        return graph

    async def events(
        self, name: str, *, reason: str | None = None, kind: str = GRAPH.kind
    ) -> builtins.list[dict[str, Any]]:
        selector = f"involvedObject.name={name},involvedObject.kind={kind}"
        if reason is not None:
            selector += f",reason={reason}"
        items, _ = await self.rest.list_all(EVENT, self.namespace, field_selector=selector)
        return items

    # writes, as `kubectl create / patch --type merge / delete`

    async def create(self, kind: ResourceKind, obj: Mapping[str, Any]) -> dict[str, Any]:
        body = copy.deepcopy(dict(obj))
        if kind.namespaced:
            body["metadata"]["namespace"] = self.namespace
        return await self.rest.create(kind, body, field_manager=USER)

    async def patch(
        self, kind: ResourceKind, name: str, patch: Mapping[str, Any]
    ) -> dict[str, Any]:
        namespace = self.namespace if kind.namespaced else None
        return await self.rest.merge_patch(kind, namespace, name, patch, field_manager=USER)

    async def delete(self, kind: ResourceKind, name: str) -> None:
        await self.rest.delete(kind, self.namespace if kind.namespaced else None, name)

    # states

    async def converged(self, name: str, within: float = CONVERGE_TIMEOUT) -> dict[str, Any]:
        """Wait until the graph reads `successful` for its latest generation, and return it."""

        async def successful() -> dict[str, Any] | None:
            graph = await self.get(GRAPH, name)
            return graph if graph is not None and is_converged(graph) else None

        try:
            return await eventually(
                f"DGD {self.namespace}/{name} successful", successful, within=within
            )
        except TimeoutError as timeout:
            raise TimeoutError(f"{timeout}\n{await self.describe(name)}") from None

    async def describe(self, name: str) -> str:
        """What a person would look at when graph `name` does not converge: its status, and
        the rollout and pods of every Deployment in the namespace."""
        graph = await self.get(GRAPH, name) or {}
        generation = (graph.get("metadata") or {}).get("generation")
        lines = [f"graph generation {generation}, status {json.dumps(graph.get('status'))}"]
        for deployment in await self.list(DEPLOYMENT):
            metadata = deployment["metadata"]
            lines.append(
                f"Deployment {metadata['name']} generation {metadata.get('generation')}: "
                f"{json.dumps(deployment.get('status'))}"
            )
        for pod in await self.list(POD):
            metadata, status = pod["metadata"], pod.get("status") or {}
            lines.append(
                f"Pod {metadata['name']} node {pod['spec'].get('nodeName')} phase "
                f"{status.get('phase')} deleting {metadata.get('deletionTimestamp')} "
                f"conditions {json.dumps(status.get('conditions'))}"
            )
        return "\n".join(lines)

    async def all_converged(self, names: Iterable[str]) -> builtins.list[dict[str, Any]]:
        return [await self.converged(name) for name in names]


PORTED_COMPONENT_TYPES = frozenset({"frontend", "worker", "prefill", "decode", "planner"})
"""Component types that expose a port, so their component gets a Service."""


async def no_namespace_terminating(world: World) -> None:
    """Wait until the namespaces earlier tests deleted are gone.

    An operator reconciles the graphs of a namespace being deleted (and may try to write
    there), which is no steady state. And an API server restarted meanwhile may leave them
    behind for good: the namespace controller, finding the CRDs' group briefly missing from
    discovery after the restart, deletes the rest and removes the namespace with its graphs
    still in etcd, orphans every later operator reconciles."""

    async def none_terminating() -> bool:
        namespaces, _ = await world.rest.list_all(NAMESPACE, None)
        return all((ns.get("status") or {}).get("phase") != "Terminating" for ns in namespaces)

    await eventually("no namespace being deleted", none_terminating, within=300)


async def check_references_name_the_preferred_version(
    world: World, graph: Mapping[str, Any]
) -> None:
    """Every reference from the graph's children to the graph or one of its components names
    the group's preferred version, the one the garbage collector observes them at (another
    makes it read each child and its owner again from the API server)."""
    group = graph["apiVersion"].split("/")[0]
    preferred = (await world.rest.get_path(f"/apis/{group}"))["preferredVersion"]["groupVersion"]
    components = [dcd for dcd in await world.list(COMPONENT) if is_controlled_by(dcd, graph)]
    owners = {graph["metadata"]["uid"]} | {dcd["metadata"]["uid"] for dcd in components}
    references = [
        (kind.kind, obj["metadata"]["name"], reference["apiVersion"])
        for kind in (COMPONENT, DEPLOYMENT, SERVICE)
        for obj in await world.list(kind)
        for reference in obj["metadata"].get("ownerReferences") or ()
        if reference.get("uid") in owners
    ]
    assert references, "the graph has children"
    assert {version for _, _, version in references} == {preferred}, references


async def check_converged_children(world: World, graph: Mapping[str, Any]) -> None:
    """What `kubectl get` shows for a converged graph: one DCD per service named
    `<dgd>-<lowercase service>` controlled by the graph; per DCD a Deployment (or one
    LeaderWorkerSet per replica when multinode) and, when the component has a port, a Service,
    each controlled by the DCD and rolled out; every pod Ready; a replica summary per service."""
    name = graph["metadata"]["name"]
    services = graph["spec"]["services"]
    await check_references_name_the_preferred_version(world, graph)
    dcds = {
        dcd["metadata"]["name"]: dcd
        for dcd in await world.list(COMPONENT)
        if is_controlled_by(dcd, graph)
    }
    assert set(dcds) == {component_name(name, service) for service in services}
    deployments = {d["metadata"]["name"]: d for d in await world.list(DEPLOYMENT)}
    leader_worker_sets = {s["metadata"]["name"]: s for s in await world.list(LEADER_WORKER_SET)}
    services_by_name = {s["metadata"]["name"]: s for s in await world.list(SERVICE)}
    summaries = graph["status"]["services"]
    assert set(summaries) == set(services)
    for service, entry in services.items():
        dcd = dcds[component_name(name, service)]
        dcd_name = dcd["metadata"]["name"]
        replicas = entry.get("replicas", 1)
        nodes = (entry.get("multinode") or {}).get("nodeCount", 1)
        assert is_condition_true(dcd, "Available"), dcd_name
        if nodes > 1:
            assert dcd_name not in deployments
            for index in range(replicas):
                group = leader_worker_sets[f"{dcd_name}-{index}"]
                assert is_controlled_by(group, dcd)
                assert group["spec"]["leaderWorkerTemplate"]["size"] == nodes
                assert is_condition_true(group, "Available")
        else:
            deployment = deployments[dcd_name]
            assert is_controlled_by(deployment, dcd)
            assert deployment["spec"]["replicas"] == replicas
            status = deployment["status"]
            assert status["observedGeneration"] == deployment["metadata"]["generation"]
            assert status.get("updatedReplicas") == status.get("availableReplicas") == replicas
        if entry.get("componentType") in PORTED_COMPONENT_TYPES:
            assert is_controlled_by(services_by_name[dcd_name], dcd)
        else:
            assert dcd_name not in services_by_name
        summary = summaries[service]
        assert summary["componentName"] == dcd_name
        assert summary["replicas"] == summary["readyReplicas"] == replicas, summary
        pods = await world.list(POD, labels={SELECTOR_LABEL: dcd_name})
        assert len(pods) == replicas * nodes, dcd_name
        assert all(is_pod_ready(pod) for pod in pods), dcd_name
