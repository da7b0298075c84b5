"""Every validation rule, end to end through the HTTP layer with the real validators."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from prometheus_client import REGISTRY

import dynamo_operator.validation
from e2e.support.admission_reviews import admission_review
from tests.webhooks.reviews import DCD_PATH, DGD_PATH, MODEL_PATH
from webhooks.app import build_app

pytestmark = pytest.mark.anyio

Client = TestClient[Any, Any]
Edit = Callable[[dict[str, Any]], None]

GRAPH: dict[str, Any] = {
    "apiVersion": "nvidia.com/v1alpha1",
    "kind": "DynamoGraphDeployment",
    "metadata": {"name": "llm", "namespace": "default"},
    "spec": {
        "backendFramework": "vllm",
        "services": {
            "Frontend": {"componentType": "frontend", "replicas": 1},
            "VllmWorker": {
                "componentType": "worker",
                "replicas": 2,
                "resources": {"limits": {"gpu": "1"}},
            },
        },
    },
}
COMPONENT: dict[str, Any] = {
    "apiVersion": "nvidia.com/v1alpha1",
    "kind": "DynamoComponentDeployment",
    "metadata": {"name": "llm-vllmworker", "namespace": "default"},
    "spec": {"backendFramework": "vllm", "componentType": "worker", "replicas": 1},
}
MODEL: dict[str, Any] = {
    "apiVersion": "nvidia.com/v1alpha1",
    "kind": "DynamoModel",
    "metadata": {"name": "adapter", "namespace": "default"},
    "spec": {
        "modelName": "my-lora",
        "baseModelName": "Qwen/Qwen3-0.6B",
        "modelType": "lora",
        "source": {"uri": "s3://bucket/my-lora"},
    },
}


@pytest.fixture
async def client() -> AsyncIterator[Client]:
    app = build_app(dynamo_operator.validation)
    async with TestClient(TestServer(app)) as test_client:
        yield test_client


def edited(obj: dict[str, Any], edit: Edit) -> dict[str, Any]:
    copied = copy.deepcopy(obj)
    edit(copied)
    return copied


def services(obj: dict[str, Any]) -> dict[str, Any]:
    return obj["spec"]["services"]  # type: ignore[no-any-return]


async def admit(client: Client, path: str, review: dict[str, Any]) -> dict[str, Any]:
    response = await client.post(path, json=review)
    assert response.status == 200
    answer: dict[str, Any] = (await response.json())["response"]
    assert answer["uid"] == review["request"]["uid"]
    return answer


@pytest.mark.parametrize(
    ("path", "obj"), [(DGD_PATH, GRAPH), (DCD_PATH, COMPONENT), (MODEL_PATH, MODEL)]
)
async def test_valid_objects_are_admitted(client: Client, path: str, obj: dict[str, Any]) -> None:
    answer = await admit(client, path, admission_review(obj))
    assert answer["allowed"] is True, answer


CREATE_DENIALS: list[tuple[str, dict[str, Any], Edit, str, str]] = [
    (DGD_PATH, GRAPH, lambda o: o["spec"].update(services={}), "spec.services", "at least one"),
    (
        DGD_PATH,
        GRAPH,
        lambda o: services(o)["Frontend"].update(replicas=-1),
        "spec.services.Frontend.replicas",
        "greater than or equal to 0",
    ),
    (
        DGD_PATH,
        GRAPH,
        lambda o: services(o)["Frontend"].update(ingress={"enabled": True}),
        "spec.services.Frontend.ingress.host",
        "required when ingress is enabled",
    ),
    (
        DGD_PATH,
        GRAPH,
        lambda o: services(o)["Frontend"].update(sharedMemory={"disabled": False}),
        "spec.services.Frontend.sharedMemory.size",
        "required when disabled is false",
    ),
    (
        DGD_PATH,
        GRAPH,
        lambda o: o["spec"].update(pvcs=[{"name": "cache", "create": True}]),
        "spec.pvcs[0]",
        "required when create is true",
    ),
    (
        DGD_PATH,
        GRAPH,
        lambda o: services(o)["VllmWorker"].update(
            volumeMounts=[{"name": "cache", "useAsCompilationCache": False}]
        ),
        "spec.services.VllmWorker.volumeMounts[0].mountPoint",
        "required when useAsCompilationCache is false",
    ),
    (
        DGD_PATH,
        GRAPH,
        lambda o: o["spec"].update(backendFramework="tensorflow"),
        "spec.backendFramework",
        "'sglang', 'vllm' or 'trtllm'",
    ),
    (
        DCD_PATH,
        COMPONENT,
        lambda o: o["spec"].update(replicas=-3),
        "spec.replicas",
        "greater than or equal to 0",
    ),
    (
        MODEL_PATH,
        MODEL,
        lambda o: o["spec"].update(modelName=""),
        "spec.modelName",
        "must not be empty",
    ),
    (
        MODEL_PATH,
        MODEL,
        lambda o: o["spec"].update(baseModelName=" "),
        "spec.baseModelName",
        "must not be empty",
    ),
    (MODEL_PATH, MODEL, lambda o: o["spec"].pop("source"), "spec.source", "lora"),
    (
        MODEL_PATH,
        MODEL,
        lambda o: o["spec"]["source"].update(uri="http://example.com/x"),
        "spec.source.uri",
        "s3:// or hf://",
    ),
]


@pytest.mark.parametrize(("path", "base", "edit", "field", "words"), CREATE_DENIALS)
async def test_invalid_create_is_denied_with_field_path_and_reason(
    client: Client, path: str, base: dict[str, Any], edit: Edit, field: str, words: str
) -> None:
    answer = await admit(client, path, admission_review(edited(base, edit)))
    assert answer["allowed"] is False
    assert answer["status"]["code"] == 403
    message = answer["status"]["message"]
    assert f"{field}" in message
    assert words in message


UPDATE_DENIALS: list[tuple[str, dict[str, Any], Edit, str, str]] = [
    (
        DGD_PATH,
        GRAPH,
        lambda o: o["spec"].update(backendFramework="sglang"),
        "spec.backendFramework",
        "immutable",
    ),
    (
        DGD_PATH,
        GRAPH,
        lambda o: services(o)["VllmWorker"].update(
            multinode={"nodeCount": 2}, extraPodSpec={"mainContainer": {"image": "vllm"}}
        ),
        "spec.services.VllmWorker",
        "node topology",
    ),
    (
        DCD_PATH,
        COMPONENT,
        lambda o: o["spec"].update(backendFramework="trtllm"),
        "spec.backendFramework",
        "immutable",
    ),
    (
        MODEL_PATH,
        MODEL,
        lambda o: o["spec"].update(baseModelName="other"),
        "spec.baseModelName",
        "immutable",
    ),
    (
        MODEL_PATH,
        MODEL,
        lambda o: o["spec"].update(modelType="base"),
        "spec.modelType",
        "immutable",
    ),
]


@pytest.mark.parametrize(("path", "base", "edit", "field", "words"), UPDATE_DENIALS)
async def test_immutable_fields_are_denied_on_update_and_counted(
    client: Client, path: str, base: dict[str, Any], edit: Edit, field: str, words: str
) -> None:
    labels = {
        "resource_type": base["kind"],
        "operation": "UPDATE",
        "reason": "immutable_field_changed",
    }
    before = REGISTRY.get_sample_value("dynamo_operator_webhook_denials_total", labels) or 0
    review = admission_review(edited(base, edit), operation="UPDATE", old=base)
    answer = await admit(client, path, review)
    assert answer["allowed"] is False
    assert answer["status"]["code"] == 403
    assert field in answer["status"]["message"]
    assert words in answer["status"]["message"]
    after = REGISTRY.get_sample_value("dynamo_operator_webhook_denials_total", labels)
    assert after == before + 1


async def test_mutable_change_on_update_is_admitted(client: Client) -> None:
    scaled = edited(GRAPH, lambda o: services(o)["VllmWorker"].update(replicas=8))
    answer = await admit(client, DGD_PATH, admission_review(scaled, operation="UPDATE", old=GRAPH))
    assert answer["allowed"] is True


async def test_immutable_change_is_admitted_while_the_object_is_being_deleted(
    client: Client,
) -> None:
    def finalize(obj: dict[str, Any]) -> None:
        obj["spec"]["backendFramework"] = "sglang"
        obj["metadata"]["deletionTimestamp"] = "2026-11-21T00:00:00Z"

    review = admission_review(edited(GRAPH, finalize), operation="UPDATE", old=GRAPH)
    assert (await admit(client, DGD_PATH, review))["allowed"] is True


async def test_invalid_object_may_always_be_deleted(client: Client) -> None:
    broken = edited(GRAPH, lambda o: o["spec"].update(services={}))
    review = admission_review(None, operation="DELETE", old=broken, kind="DynamoGraphDeployment")
    assert (await admit(client, DGD_PATH, review))["allowed"] is True


async def test_unknown_fields_are_admitted_with_a_warning(client: Client) -> None:
    """The API server has already refused or pruned a field its CRD lacks: one that reaches the
    webhook is defined by a CRD newer than this operator, which must not deny it."""
    extra = edited(GRAPH, lambda o: o["spec"].update(bogus=1))
    answer = await admit(client, DGD_PATH, admission_review(extra))
    assert answer["allowed"] is True
    assert "spec.bogus: field unknown to this operator version; it is ignored" in answer["warnings"]
