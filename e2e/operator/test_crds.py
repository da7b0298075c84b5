"""The generated CRDs on a real API server: accepted, Established, explained, enforced, and
faithful to the models (what the server stores parses and dumps back unchanged)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import anyio
import kr8s
import kr8s.asyncio
import pytest

from dynamo_operator.api import DynamoComponent, DynamoGraphDeployment

pytestmark = pytest.mark.e2e

GROUP_VERSION = "nvidia.com/v1alpha1"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"


@pytest.fixture
async def api(kubeconfig: Path, installed_crds: list[Any]) -> kr8s.asyncio.Api:
    return await kr8s.asyncio.api(kubeconfig=str(kubeconfig))


async def _request(
    api: kr8s.asyncio.Api, method: str, url: str, namespace: str | None = None, **kwargs: Any
) -> Any:
    async with api.call_api(
        method, version=GROUP_VERSION, namespace=namespace, url=url, **kwargs
    ) as r:
        return r.json()


def _graph(name: str, services: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": GROUP_VERSION,
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": name},
        "spec": {"services": services, **spec},
    }


def test_crds_are_established_with_their_short_names(installed_crds: list[Any]) -> None:
    accepted = {
        crd["status"]["acceptedNames"]["kind"]: crd["status"]["acceptedNames"]["shortNames"]
        for crd in installed_crds
    }

    assert accepted == {
        "DynamoGraphDeployment": ["dgd"],
        "DynamoComponentDeployment": ["dcd"],
        "DynamoModel": ["dm"],
        "DynamoComponent": ["dc"],
        "DynamoWorkerMetadata": ["dwm"],
        "DynamoGraphDeploymentScalingAdapter": ["dgdsa"],
    }


async def _published_schemas(api: kr8s.asyncio.Api) -> dict[str, Any]:
    """The group's OpenAPI v3 document; the server publishes it a few seconds after the CRDs
    become Established, and answers 404 until then."""
    with anyio.fail_after(60):
        while True:
            try:
                async with api.call_api(
                    "GET", version="", base="/openapi/v3", url="apis/nvidia.com/v1alpha1"
                ) as r:
                    schemas: dict[str, Any] = r.json()["components"]["schemas"]
                    return schemas
            except kr8s.ServerError as error:
                if error.response is None or error.response.status_code != 404:
                    raise
            await anyio.sleep(0.5)


@pytest.mark.anyio
async def test_published_openapi_carries_field_descriptions(api: kr8s.asyncio.Api) -> None:
    schemas = await _published_schemas(api)

    graph = schemas["com.nvidia.v1alpha1.DynamoGraphDeployment"]
    spec = graph["properties"]["spec"]
    service = spec["properties"]["services"]["additionalProperties"]
    node_count = service["properties"]["multinode"]["properties"]["nodeCount"]
    assert "DynamoComponentDeployment" in spec["properties"]["services"]["description"]
    assert node_count["description"] == "Number of nodes each replica spans."
    assert node_count["default"] == 2


@pytest.mark.anyio
async def test_a_graph_round_trips_through_the_server_and_the_models(
    api: kr8s.asyncio.Api, namespace: str
) -> None:
    free_form = {
        "livenessProbe": {"httpGet": {"path": "/live", "port": "system"}, "periodSeconds": 7},
        "extraPodSpec": {
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}],
            "priorityClassName": "high",
            "mainContainer": {
                "image": "dynamo:1",
                "command": ["python3", "-m", "dynamo.vllm"],
                "startupProbe": {"tcpSocket": {"port": 2222}},
            },
        },
    }
    sent = _graph(
        "round-trip",
        {"VllmWorker": {"componentType": "worker", "multinode": {}, **copy.deepcopy(free_form)}},
        backendFramework="vllm",
        notInTheSchema={"pruned": True},
    )

    stored = await _request(api, "POST", "dynamographdeployments", namespace, json=sent)

    worker = stored["spec"]["services"]["VllmWorker"]
    assert {key: worker[key] for key in free_form} == free_form
    assert worker["multinode"] == {"nodeCount": 2}  # defaulted by the schema, as by the model
    assert "notInTheSchema" not in stored["spec"]  # structural schemas prune undeclared fields
    assert DynamoGraphDeployment.model_validate(stored).to_wire() == stored


@pytest.mark.anyio
async def test_a_dynamo_component_and_a_graph_naming_it_round_trip(
    api: kr8s.asyncio.Api, namespace: str
) -> None:
    """The seed-000 shapes: every upstream field of a DynamoComponent (the Kubernetes parts kept
    as written), and a graph naming an artifact with a service-level pvc."""
    spec = {
        "dynamoComponent": "frontend:jh2o6dqzpsgfued4",
        "imageBuildTimeout": "30m",
        "buildArgs": ["A=1"],
        "imageBuilderExtraPodMetadata": {"labels": {"team": "ml"}},
        "imageBuilderExtraPodSpec": {"tolerations": [{"key": "build", "operator": "Exists"}]},
        "imageBuilderExtraContainerEnv": [
            {"name": "T", "valueFrom": {"fieldRef": {"fieldPath": "x"}}}
        ],
        "imageBuilderContainerResources": {"limits": {"memory": "4Gi"}},
        "imagePullSecrets": [{"name": "pull"}],
        "dockerConfigJsonSecretName": "push",
        "downloaderContainerEnvFrom": [{"secretRef": {"name": "store-token"}}],
    }
    sent = {
        "apiVersion": GROUP_VERSION,
        "kind": "DynamoComponent",
        "metadata": {"name": "frontend--jh2o6dqzpsgfued4"},
        "spec": spec,
    }

    stored = await _request(api, "POST", "dynamocomponents", namespace, json=sent)

    assert stored["spec"] == spec
    assert DynamoComponent.model_validate(stored).to_wire() == stored
    pvc = {"name": "vllm-model-storage", "mountPath": "/models", "size": "100Gi"}
    graph = _graph("seed", {"VllmWorker": {"pvc": pvc}}, dynamoComponent=spec["dynamoComponent"])
    stored_graph = await _request(api, "POST", "dynamographdeployments", namespace, json=graph)
    assert stored_graph["spec"]["dynamoComponent"] == spec["dynamoComponent"]
    assert stored_graph["spec"]["services"]["VllmWorker"]["pvc"] == pvc


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("services", "spec", "field"),
    [
        ({"A": {"replicas": -1}}, {}, "replicas"),
        ({"A": {"multinode": {"nodeCount": 1}}}, {}, "nodeCount"),
        ({"A": {}}, {"backendFramework": "tensorflow"}, "backendFramework"),
        ({f"s{i}": {} for i in range(26)}, {}, "services"),
        ({"A": {}}, {"pvcs": [{"name": "m", "create": True, "size": "1Gi"}]}, "volumeAccessMode"),
        ({"A": {"envs": [{"name": "X"}, {"name": "X"}]}}, {}, "envs"),
    ],
)
async def test_the_schema_rejects_what_the_models_reject(
    api: kr8s.asyncio.Api,
    namespace: str,
    services: dict[str, Any],
    spec: dict[str, Any],
    field: str,
) -> None:
    with pytest.raises(kr8s.ServerError) as rejected:
        await _request(
            api, "POST", "dynamographdeployments", namespace, json=_graph("bad", services, **spec)
        )

    assert rejected.value.response is not None
    assert rejected.value.response.status_code == 422
    assert field in str(rejected.value)


@pytest.mark.anyio
async def test_kubectl_get_shows_the_printer_columns(api: kr8s.asyncio.Api, namespace: str) -> None:
    await _request(
        api,
        "POST",
        "dynamographdeployments",
        namespace,
        json=_graph("cols", {"A": {}}, backendFramework="sglang"),
    )

    table = await _request(
        api, "GET", "dynamographdeployments", namespace, headers={"Accept": TABLE}
    )

    assert [c["name"] for c in table["columnDefinitions"]] == [
        "Name",
        "State",
        "Ready",
        "Backend",
        "Age",
    ]
    [row] = table["rows"]
    assert row["cells"][0] == "cols"
    assert row["cells"][3] == "sglang"
