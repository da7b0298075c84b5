"""`dynamo-operator run` and DynamoModels: LoRA adapters loaded onto and unloaded from workers.

Fake workers (`e2e/lora_workers.py`) listen on test hosts in network namespaces of their own and
record the calls they get; a Service without selector and hand-made EndpointSlices carrying the
base model's hash label point at them, as the cluster would for the pods of components that
serve that model (kwok's pods have no reachable address). One operator process for the module;
each test has its own namespace and hosts, and deletes its models (unloading them) at the end.
The last test runs the real path: components with `modelRef` on kwok's nodes, their shared
headless Service, and the EndpointSlices the cluster publishes for it.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar
from urllib.parse import quote

import pytest

from e2e.localcluster import condition, is_condition_true
from e2e.support import kwok_only, polling
from e2e.support.kinds import GRAPH, MODEL
from e2e.support.lora_workers import PORT, Call, Worker, WorkerNetwork, worker_network
from e2e.support.operator_process import OperatorProcess
from manager.runtime.client import NotFound, RestClient
from manager.runtime.kinds import ENDPOINT_SLICE, EVENT, POD, SERVICE

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

T = TypeVar("T")
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
QWEN = "Qwen/Qwen3-0.6B"
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
ADAPTER = "team/math-adapter"
URI = "s3://adapters/math-adapter"
FINALIZER = "nvidia.com/finalizer"
HASH_LABEL = "nvidia.com/dynamo-base-model-hash"


def model_hash(base_model: str) -> str:
    """What the spec says the hash is: the first 8 hex digits of the name's SHA-256."""
    return hashlib.sha256(base_model.encode()).hexdigest()[:8]


# Models settle fast (no Pods): a shorter bound and a tighter poll than the graphs'.
eventually = functools.partial(polling.eventually, within=60.0, interval=0.25)


class Cluster:
    """One namespace: the workers' Services and EndpointSlices, the models, their Events."""

    def __init__(self, rest: RestClient, namespace: str) -> None:
        self.rest = rest
        self.namespace = namespace

    async def serve(
        self,
        base_model: str,
        workers: Sequence[Worker],
        *,
        not_ready: Sequence[Worker] = (),
        slice_index: int = 0,
    ) -> str:
        """A selector-less Service for `base_model` (once) and an EndpointSlice listing
        `workers` as ready pods and `not_ready` as pods that are not; returns its name."""
        service = f"dynamo-model-{model_hash(base_model)}"
        if slice_index == 0:
            await self.rest.create(
                SERVICE,
                {
                    "apiVersion": "v1",
                    "kind": "Service",
                    "metadata": {"name": service, "namespace": self.namespace},
                    "spec": {"clusterIP": "None", "ports": [{"name": "system", "port": PORT}]},
                },
                field_manager="e2e",
            )
        name = f"{service}-{slice_index}"
        await self.rest.create(
            ENDPOINT_SLICE,
            {
                "apiVersion": "discovery.k8s.io/v1",
                "kind": "EndpointSlice",
                "metadata": {
                    "name": name,
                    "namespace": self.namespace,
                    "labels": {
                        HASH_LABEL: model_hash(base_model),
                        "kubernetes.io/service-name": service,
                        "endpointslice.kubernetes.io/managed-by": "e2e.dynamo-operator",
                    },
                },
                "addressType": "IPv4",
                "ports": [{"name": "system", "port": PORT, "protocol": "TCP"}],
                "endpoints": self._endpoints(workers) + self._endpoints(not_ready, ready=False),
            },
            field_manager="e2e",
        )
        return name

    async def set_workers(self, slice_name: str, workers: Sequence[Worker]) -> None:
        await self.rest.merge_patch(
            ENDPOINT_SLICE,
            self.namespace,
            slice_name,
            {"endpoints": self._endpoints(workers)},
            field_manager="e2e",
        )

    def _endpoints(self, workers: Sequence[Worker], *, ready: bool = True) -> list[dict[str, Any]]:
        return [
            {
                "addresses": [worker.ip],
                "conditions": {"ready": ready},
                "targetRef": {"kind": "Pod", "namespace": self.namespace, "name": worker.name},
            }
            for worker in workers
        ]

    async def create_model(
        self, name: str, base_model: str, *, model_type: str = "lora"
    ) -> dict[str, Any]:
        spec: dict[str, Any] = {"modelName": ADAPTER, "baseModelName": base_model}
        if model_type == "lora":
            spec.update(modelType="lora", source={"uri": URI})
        body = {
            "apiVersion": MODEL.api_version,
            "kind": MODEL.kind,
            "metadata": {"name": name, "namespace": self.namespace},
            "spec": spec,
        }
        return await self.rest.create(MODEL, body, field_manager="kubectl")

    async def model(self, name: str) -> dict[str, Any] | None:
        try:
            return await self.rest.get(MODEL, self.namespace, name)
        except NotFound:
            return None

    async def model_until(
        self, name: str, description: str, check: Callable[[dict[str, Any]], bool]
    ) -> dict[str, Any]:
        async def probe() -> dict[str, Any] | None:
            model = await self.model(name)
            return model if model is not None and check(model) else None

        return await eventually(f"DynamoModel {name}: {description}", probe)

    async def ready(self, name: str, ready: int, total: int) -> dict[str, Any]:
        return await self.model_until(
            name, f"{ready}/{total} endpoints ready", lambda model: counts(model) == (ready, total)
        )

    async def events(self, name: str, reason: str) -> list[dict[str, Any]]:
        """The model's Events with this reason, once there is at least one: Events are
        recorded after the status write, so a reader of the status may be ahead of them."""
        selector = f"involvedObject.name={name},involvedObject.kind={MODEL.kind},reason={reason}"

        async def recorded() -> list[dict[str, Any]]:
            items, _ = await self.rest.list_all(EVENT, self.namespace, field_selector=selector)
            return items

        return await eventually(f"a {reason} Event for DynamoModel {name}", recorded)

    async def delete_models(self) -> None:
        models, _ = await self.rest.list_all(MODEL, self.namespace)
        for model in models:
            await self.rest.delete(MODEL, self.namespace, model["metadata"]["name"])
        for model in models:
            name = model["metadata"]["name"]
            await eventually(f"DynamoModel {name} gone", lambda n=name: self._gone(n))

    async def _gone(self, name: str) -> bool:
        return await self.model(name) is None


def counts(model: Mapping[str, Any]) -> tuple[int | None, int | None]:
    status = model.get("status") or {}
    observed = status.get("observedGeneration") == model["metadata"].get("generation")
    if not observed:
        return None, None
    return status.get("readyEndpoints"), status.get("totalEndpoints")


def load_call() -> Call:
    return Call("POST", "/v1/loras", {"lora_name": ADAPTER, "source": {"uri": URI}})


def unload_call() -> Call:
    return Call("DELETE", f"/v1/loras/{quote(ADAPTER, safe='')}", None)


@pytest.fixture
def network() -> Iterator[WorkerNetwork]:
    with worker_network() as hosts:
        yield hosts


@pytest.fixture
async def cluster(api: Any, namespace: str, operator: OperatorProcess) -> AsyncIterator[Cluster]:
    world = Cluster(RestClient.for_api(api), namespace)
    yield world
    await world.delete_models()  # while the operator runs: it holds their finalizers


async def test_a_lora_is_loaded_once_on_every_ready_worker(
    cluster: Cluster, network: WorkerNetwork, operator: OperatorProcess
) -> None:
    workers = [network.add(f"worker-{index}") for index in range(3)]
    standby = network.add("standby")
    slice_name = await cluster.serve(QWEN, workers[:2])
    await cluster.serve(QWEN, workers[2:], not_ready=[standby], slice_index=1)

    await cluster.create_model("math", QWEN)

    model = await cluster.ready("math", 3, 3)
    assert [worker.received("POST") for worker in workers] == [[load_call()]] * 3
    assert standby.calls == []
    assert sorted(endpoint["address"] for endpoint in model["status"]["endpoints"]) == sorted(
        worker.address for worker in workers
    )
    assert all(endpoint["ready"] for endpoint in model["status"]["endpoints"])
    ready = condition(model, "EndpointsReady")
    assert (ready["status"], ready["reason"]) == ("True", "AllEndpointsReady")
    assert is_condition_true(model, "ServicesFound")
    assert FINALIZER in model["metadata"]["finalizers"]
    assert await cluster.events("math", "LoRALoaded")

    # A slice change brings the model back to the operator; the workers are not asked again.
    passes = operator.metric_sum("dynamo_operator_reconcile_total", resource_type="DynamoModel")
    await cluster.set_workers(slice_name, list(reversed(workers[:2])))
    await eventually(
        "a reconcile after the slice change",
        lambda: _more(operator, passes),
    )
    assert [len(worker.calls) for worker in workers] == [1, 1, 1]


async def _more(operator: OperatorProcess, passes: float) -> bool:
    return (
        operator.metric_sum("dynamo_operator_reconcile_total", resource_type="DynamoModel") > passes
    )


async def test_a_new_worker_gets_the_adapter(cluster: Cluster, network: WorkerNetwork) -> None:
    first = network.add("worker-0")
    slice_name = await cluster.serve(QWEN, [first])
    await cluster.create_model("math", QWEN)
    await cluster.ready("math", 1, 1)

    second = network.add("worker-1")
    await cluster.set_workers(slice_name, [first, second])

    await cluster.ready("math", 2, 2)
    assert first.received("POST") == [load_call()]
    assert second.received("POST") == [load_call()]

    async def loaded_on_second() -> list[dict[str, Any]]:
        events = await cluster.events("math", "LoRALoaded")
        return [event for event in events if second.address in event["message"]]

    # Events are recorded after the status: wait for the one naming the worker.
    [event] = await eventually("a LoRALoaded Event naming the new worker", loaded_on_second)
    assert first.address not in event["message"]


async def test_failing_workers_are_reported_and_retried(
    cluster: Cluster, network: WorkerNetwork
) -> None:
    good = network.add("good")
    failing, garbled, closing = (network.add(name) for name in ("failing", "garbled", "closing"))
    failing.behave(load="fail")
    garbled.behave(load="garbage")
    closing.behave(load="close")
    await cluster.serve(QWEN, [good, failing, garbled, closing])

    await cluster.create_model("math", QWEN)

    model = await cluster.ready("math", 1, 4)
    ready = condition(model, "EndpointsReady")
    assert (ready["status"], ready["reason"], ready["message"]) == (
        "False",
        "NotReady",
        "LoRA loaded on 1 of 4 endpoint(s)",
    )
    messages = {e["podName"]: e.get("message") for e in model["status"]["endpoints"]}
    assert messages["good"] is None
    assert messages["failing"].startswith("HTTP 500")
    assert messages["garbled"].startswith("invalid response")
    assert messages["closing"].startswith("connection failed")
    [warning] = await cluster.events("math", "PartialEndpointFailure")
    assert warning["type"] == "Warning"
    assert "3 of 4" in warning["message"]

    for worker in (failing, garbled, closing):
        worker.behave(load="ok")

    await cluster.ready("math", 4, 4)  # retried 30 s later, with nothing else happening
    assert len(good.received("POST")) == 1
    assert [len(w.received("POST")) for w in (failing, garbled, closing)] == [2, 2, 2]


async def test_deleting_the_model_unloads_it_from_every_worker(
    cluster: Cluster, network: WorkerNetwork
) -> None:
    willing, refusing = network.add("willing"), network.add("refusing")
    refusing.behave(unload="fail")
    await cluster.serve(QWEN, [willing, refusing])
    await cluster.create_model("math", QWEN)
    await cluster.ready("math", 2, 2)

    await cluster.rest.delete(MODEL, cluster.namespace, "math")

    await eventually("DynamoModel math gone", lambda: cluster._gone("math"))
    assert willing.received("DELETE") == [unload_call()]
    assert refusing.received("DELETE") == [unload_call()]
    [warning] = await cluster.events("math", "LoRAUnloadFailed")
    assert refusing.address in warning["message"]
    assert willing.address not in warning["message"]


async def test_a_hung_worker_does_not_hold_up_another_model(
    cluster: Cluster, network: WorkerNetwork
) -> None:
    hung, healthy = network.add("hung"), network.add("healthy")
    hung.behave(load="hang")
    await cluster.serve(QWEN, [hung])
    await cluster.serve(LLAMA, [healthy])
    await cluster.create_model("stuck", QWEN)
    await eventually("the hung worker called", lambda: _called(hung))

    await cluster.create_model("quick", LLAMA)

    await cluster.ready("quick", 1, 1)
    stuck = await cluster.model("stuck")
    assert stuck is not None
    assert counts(stuck) != (1, 1)  # its load is still waiting for the hung worker
    assert healthy.received("POST") == [load_call()]


async def _called(worker: Worker) -> bool:
    return bool(worker.calls)


async def test_kubectl_get_dm_shows_ready_and_total(
    cluster: Cluster, network: WorkerNetwork, api: Any
) -> None:
    worker = network.add("worker-0")
    await cluster.serve(QWEN, [worker])
    await cluster.create_model("math", QWEN)
    await cluster.create_model("base", QWEN, model_type="base")
    await cluster.ready("math", 1, 1)
    await cluster.ready("base", 1, 1)

    async with api.call_api(
        "GET",
        version=MODEL.api_version,
        namespace=cluster.namespace,
        url=MODEL.plural,
        headers={"Accept": TABLE},
    ) as response:
        table = response.json()

    columns = [column["name"] for column in table["columnDefinitions"]]
    assert columns == ["Name", "BaseModel", "Type", "Ready", "Total", "Age"]
    rows = {row["cells"][0]: row["cells"][:5] for row in table["rows"]}
    assert rows == {
        "base": ["base", QWEN, "base", 1, 1],
        "math": ["math", QWEN, "lora", 1, 1],
    }
    assert worker.received("POST") == [load_call()]  # the base model asks nothing


@kwok_only.ENDPOINTS_OF_READY_PODS
async def test_components_serving_a_base_model_share_its_service_where_models_find_them(
    cluster: Cluster,
) -> None:
    services = {
        name: {
            "componentType": "worker",
            "subComponentType": name.lower(),
            "replicas": replicas,
            "modelRef": {"name": QWEN},
            "extraPodSpec": {
                "mainContainer": {
                    "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.7.0",
                    "command": ["python3", "-m", "dynamo.vllm"],
                }
            },
        }
        for name, replicas in (("Prefill", 1), ("Decode", 2))
    }
    graph = {
        "apiVersion": GRAPH.api_version,
        "kind": GRAPH.kind,
        "metadata": {"name": "llm", "namespace": cluster.namespace},
        "spec": {"backendFramework": "vllm", "services": services},
    }
    await cluster.rest.create(GRAPH, graph, field_manager="kubectl")
    await cluster.create_model("qwen", QWEN, model_type="base")

    model = await cluster.ready("qwen", 3, 3)

    service_name = f"dynamo-model-{model_hash(QWEN)}"
    service = await cluster.rest.get(SERVICE, cluster.namespace, service_name)
    owners = service["metadata"]["ownerReferences"]
    assert sorted(owner["name"] for owner in owners) == ["llm-decode", "llm-prefill"]
    assert not any(owner.get("controller") for owner in owners)
    assert service["spec"]["clusterIP"] == "None"
    assert service["spec"]["selector"] == {HASH_LABEL: model_hash(QWEN)}
    pods, _ = await cluster.rest.list_all(
        POD, cluster.namespace, label_selector=f"{HASH_LABEL}={model_hash(QWEN)}"
    )
    assert sorted(pod["metadata"]["name"] for pod in pods) == sorted(
        endpoint["podName"] for endpoint in model["status"]["endpoints"]
    )
    assert {pod["metadata"]["annotations"]["nvidia.com/dynamo-base-model"] for pod in pods} == {
        QWEN
    }
    discovered = condition(model, "EndpointsReady")
    assert (discovered["status"], discovered["reason"]) == ("True", "EndpointsDiscovered")
    assert condition(model, "ServicesFound")["message"] == "Found 1 service(s)"

    # A component that stops serving the model leaves the Service to the others; the last one
    # takes it away, and the model is left without workers.
    await cluster.rest.merge_patch(
        GRAPH,
        cluster.namespace,
        "llm",
        {"spec": {"services": {"Decode": {"modelRef": None}}}},
        field_manager="kubectl",
    )
    await eventually(
        "the decode worker no longer an owner", lambda: _owners(cluster, ["llm-prefill"])
    )
    await cluster.rest.merge_patch(
        GRAPH,
        cluster.namespace,
        "llm",
        {"spec": {"services": {"Prefill": {"modelRef": None}}}},
        field_manager="kubectl",
    )
    await eventually("the model Service deleted", lambda: _owners(cluster, None))
    await cluster.ready("qwen", 0, 0)


async def _owners(cluster: Cluster, expected: list[str] | None) -> bool:
    """Whether the model Service is owned by exactly `expected` (None: it does not exist)."""
    try:
        service = await cluster.rest.get(
            SERVICE, cluster.namespace, f"dynamo-model-{model_hash(QWEN)}"
        )
    except NotFound:
        return expected is None
    names = sorted(owner["name"] for owner in service["metadata"].get("ownerReferences") or ())
    return names == expected
