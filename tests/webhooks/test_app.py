"""The HTTP layer: what the apiserver (or a broken client) gets back for every kind of request."""

from __future__ import annotations

import gzip
import json
from collections.abc import Mapping
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from prometheus_client import REGISTRY

from dynamo_operator.validation.result import ValidationResult
from e2e.support.admission_reviews import admission_review
from tests.webhooks.reviews import DCD_PATH, DENIAL, DGD_PATH, MODEL_PATH, ScriptedValidator
from webhooks.admission import MAX_BODY_BYTES

pytestmark = pytest.mark.anyio

Client = TestClient[Any, Any]
DGD = {
    "apiVersion": "nvidia.com/v1alpha1",
    "kind": "DynamoGraphDeployment",
    "metadata": {"name": "demo", "namespace": "default"},
    "spec": {"backendFramework": "vllm", "services": {"Frontend": {"replicas": 1}}},
}


async def post(client: Client, path: str, review: Mapping[str, Any]) -> dict[str, Any]:
    response = await client.post(path, json=review)
    assert response.status == 200
    body: dict[str, Any] = await response.json()
    assert body["apiVersion"] == "admission.k8s.io/v1"
    assert body["kind"] == "AdmissionReview"
    return body["response"]  # type: ignore[no-any-return]


def sample(name: str, labels: dict[str, str]) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def test_valid_create_is_allowed_and_echoes_uid(client: Client) -> None:
    response = await post(client, DGD_PATH, admission_review(DGD, uid="uid-1"))
    assert response == {"uid": "uid-1", "allowed": True}


async def test_denial_names_field_path_and_reason_with_403_and_warnings(
    client: Client, validator: ScriptedValidator
) -> None:
    validator.create_result = DENIAL
    response = await post(client, DGD_PATH, admission_review(DGD, uid="uid-2"))
    assert response["uid"] == "uid-2"
    assert response["allowed"] is False
    assert response["status"]["code"] == 403
    assert response["status"]["reason"] == "Forbidden"
    message = response["status"]["message"]
    assert "spec.backendFramework: is immutable" in message
    assert "spec.services.Frontend.replicas: must be non-negative" in message
    assert response["warnings"] == ["spec.services.Frontend.autoscaling: is deprecated"]


async def test_warnings_are_returned_on_allowed_requests(
    client: Client, validator: ScriptedValidator
) -> None:
    validator.create_result = ValidationResult(warnings=DENIAL.warnings)
    response = await post(client, DGD_PATH, admission_review(DGD))
    assert response["allowed"] is True
    assert response["warnings"] == ["spec.services.Frontend.autoscaling: is deprecated"]


async def test_update_validates_new_against_old(
    client: Client, validator: ScriptedValidator
) -> None:
    old = {**DGD, "spec": {**DGD["spec"], "backendFramework": "sglang"}}  # type: ignore[dict-item]
    validator.update_result = DENIAL
    response = await post(client, DGD_PATH, admission_review(DGD, operation="UPDATE", old=old))
    assert response["allowed"] is False
    assert validator.calls == [("update", DGD, old)]


async def test_delete_is_always_allowed_without_validation(
    client: Client, validator: ScriptedValidator
) -> None:
    validator.create_result = validator.update_result = DENIAL
    response = await post(client, DGD_PATH, admission_review(None, operation="DELETE", old=DGD))
    assert response["allowed"] is True
    assert validator.calls == []


async def test_update_of_object_being_deleted_is_allowed(
    client: Client, validator: ScriptedValidator
) -> None:
    validator.update_result = DENIAL
    deleting = {**DGD, "metadata": {**DGD["metadata"], "deletionTimestamp": "2026-01-01T00:00:00Z"}}  # type: ignore[dict-item]
    response = await post(client, DGD_PATH, admission_review(deleting, operation="UPDATE", old=DGD))
    assert response["allowed"] is True
    assert validator.calls == []


async def test_unknown_kind_is_denied_clearly(client: Client, validator: ScriptedValidator) -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}
    response = await post(client, DGD_PATH, admission_review(pod))
    assert response["allowed"] is False
    assert "unknown kind 'Pod'" in response["status"]["message"]
    assert "DynamoGraphDeployment" in response["status"]["message"]
    assert validator.calls == []


async def test_each_endpoint_serves_its_kind(client: Client, validator: ScriptedValidator) -> None:
    for path, kind in ((DCD_PATH, "DynamoComponentDeployment"), (MODEL_PATH, "DynamoModel")):
        response = await post(client, path, admission_review({"kind": kind, "metadata": {}}))
        assert response["allowed"] is True
    assert [call[1]["kind"] for call in validator.calls] == [
        "DynamoComponentDeployment",
        "DynamoModel",
    ]


async def test_object_without_kind_is_validated_as_the_requested_kind(
    client: Client, validator: ScriptedValidator
) -> None:
    bare = {key: value for key, value in DGD.items() if key != "kind"}
    await post(client, DGD_PATH, admission_review(bare, kind="DynamoGraphDeployment"))
    assert validator.calls[0][1]["kind"] == "DynamoGraphDeployment"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b'{"apiVersion": "v1", "kind": "Pod"}', "expected kind AdmissionReview"),
        (
            b'{"apiVersion": "admission.k8s.io/v1beta1", "kind": "AdmissionReview", "request": {}}',
            "unsupported AdmissionReview apiVersion",
        ),
        (b'{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}', "no request"),
        (
            b'{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {}}',
            "no uid",
        ),
    ],
)
async def test_unanswerable_bodies_get_400_with_reason(
    client: Client, body: bytes, expected: str
) -> None:
    response = await client.post(DGD_PATH, data=body, headers={"Content-Type": "application/json"})
    assert response.status == 400
    assert expected in await response.text()


async def test_wrong_content_type_gets_400(client: Client) -> None:
    response = await client.post(
        DGD_PATH, data=json.dumps(admission_review(DGD)), headers={"Content-Type": "text/plain"}
    )
    assert response.status == 400
    assert "Content-Type must be application/json" in await response.text()


async def test_oversized_body_gets_400_not_413(client: Client) -> None:
    review = admission_review({**DGD, "padding": "x" * MAX_BODY_BYTES})
    response = await client.post(DGD_PATH, json=review)
    assert response.status == 400
    assert "exceeds the limit" in await response.text()


async def test_oversized_body_without_content_length_gets_400(client: Client) -> None:
    async def chunks() -> Any:
        for _ in range(4):
            yield b" " * (1024 * 1024)

    response = await client.post(
        DGD_PATH, data=chunks(), headers={"Content-Type": "application/json"}
    )
    assert response.status == 400
    assert "exceeds the limit" in await response.text()


async def test_malformed_request_with_uid_gets_well_formed_denial(client: Client) -> None:
    review = admission_review(DGD, uid="uid-3")
    review["request"]["operation"] = "FROBNICATE"
    response = await post(client, DGD_PATH, review)
    assert response["uid"] == "uid-3"
    assert response["allowed"] is False
    assert response["status"]["code"] == 400
    assert "request.operation" in response["status"]["message"]


async def test_create_without_object_is_denied(client: Client) -> None:
    response = await post(client, DGD_PATH, admission_review(None, kind="DynamoGraphDeployment"))
    assert response["allowed"] is False
    assert "carries no object" in response["status"]["message"]


async def test_validator_crash_becomes_denial_not_http_500(
    client: Client, validator: ScriptedValidator
) -> None:
    def explode(obj: Mapping[str, Any]) -> ValidationResult:
        raise KeyError("bug")

    validator.validate_create = explode  # type: ignore[method-assign]
    response = await post(client, DGD_PATH, admission_review(DGD, uid="uid-4"))
    assert response["uid"] == "uid-4"
    assert response["allowed"] is False
    assert response["status"]["code"] == 500


async def test_get_is_refused_without_server_error(client: Client) -> None:
    response = await client.get(DGD_PATH)
    assert response.status == 405


async def test_metrics_count_requests_codes_and_denial_reasons(
    client: Client, validator: ScriptedValidator
) -> None:
    kind = "DynamoGraphDeployment"
    counters = {
        "ok": ("controller_runtime_webhook_requests_total", {"webhook": DGD_PATH, "code": "200"}),
        "bad": ("controller_runtime_webhook_requests_total", {"webhook": DGD_PATH, "code": "400"}),
        "denied": (
            "dynamo_operator_webhook_requests_total",
            {"resource_type": kind, "operation": "CREATE", "result": "denied"},
        ),
        "allowed": (
            "dynamo_operator_webhook_requests_total",
            {"resource_type": kind, "operation": "CREATE", "result": "allowed"},
        ),
        "immutable": (
            "dynamo_operator_webhook_denials_total",
            {"resource_type": kind, "operation": "CREATE", "reason": "immutable_field_changed"},
        ),
        "malformed": (
            "dynamo_operator_webhook_denials_total",
            {"resource_type": kind, "operation": "UNKNOWN", "reason": "malformed_request"},
        ),
        "latency": ("controller_runtime_webhook_latency_seconds_count", {"webhook": DGD_PATH}),
        "duration": (
            "dynamo_operator_webhook_duration_seconds_count",
            {"resource_type": kind, "operation": "CREATE"},
        ),
    }
    before = {key: sample(*spec) for key, spec in counters.items()}

    await post(client, DGD_PATH, admission_review(DGD))
    validator.create_result = DENIAL
    await post(client, DGD_PATH, admission_review(DGD))
    await client.post(DGD_PATH, data=b"nope", headers={"Content-Type": "application/json"})

    delta = {key: sample(*spec) - before[key] for key, spec in counters.items()}
    assert delta == {
        "ok": 2,
        "bad": 1,
        "denied": 1,
        "allowed": 1,
        "immutable": 1,
        "malformed": 1,
        "latency": 3,
        "duration": 2,
    }
    assert sample("controller_runtime_webhook_requests_in_flight", {"webhook": DGD_PATH}) == 0


@pytest.mark.parametrize(
    ("path", "sent"),
    [
        (DGD_PATH, "DynamoComponentDeployment"),
        (DGD_PATH, "DynamoModel"),
        (DCD_PATH, "DynamoGraphDeployment"),
        (MODEL_PATH, "DynamoGraphDeployment"),
    ],
)
async def test_an_object_of_another_kind_than_the_endpoints_is_denied(
    client: Client, validator: ScriptedValidator, path: str, sent: str
) -> None:
    """It used to be validated under its own kind, so a DCD sent as a DGD was allowed."""
    served = {DGD_PATH: "DynamoGraphDeployment", DCD_PATH: "DynamoComponentDeployment"}.get(
        path, "DynamoModel"
    )
    review = admission_review({**DGD, "kind": sent}, kind=served)

    response = await post(client, path, review)

    assert response["allowed"] is False
    assert response["status"]["code"] == 400
    assert f"request.object.kind is '{sent}'" in response["status"]["message"]
    assert validator.calls == []


async def test_an_old_object_of_another_kind_is_denied(
    client: Client, validator: ScriptedValidator
) -> None:
    """Otherwise the update rules (immutability) would be skipped for a mismatched oldObject."""
    old = {**DGD, "kind": "DynamoModel"}
    response = await post(client, DGD_PATH, admission_review(DGD, operation="UPDATE", old=old))

    assert response["allowed"] is False
    assert "request.oldObject.kind is 'DynamoModel'" in response["status"]["message"]
    assert validator.calls == []


@pytest.mark.parametrize(
    "broken",
    [
        {"object": "not an object"},
        {"oldObject": ["not", "an", "object"]},
        {"name": 7, "kind": "DynamoGraphDeployment"},
        {"userInfo": "nobody"},
    ],
)
async def test_a_delete_is_allowed_even_when_the_request_is_malformed(
    client: Client, validator: ScriptedValidator, broken: dict[str, Any]
) -> None:
    review = admission_review(DGD, operation="DELETE", uid="delete-1")
    review["request"].update(broken)

    response = await post(client, DGD_PATH, review)

    assert response == {"uid": "delete-1", "allowed": True}
    assert validator.calls == []


@pytest.mark.parametrize(
    ("encoding", "body"),
    [("gzip", b"this is not gzip"), ("deflate", b"\x00\x01\x02 not deflate")],
)
async def test_a_body_that_does_not_decompress_gets_400_not_500(
    client: Client, encoding: str, body: bytes
) -> None:
    response = await client.post(
        DGD_PATH,
        data=body,
        headers={"Content-Type": "application/json", "Content-Encoding": encoding},
    )

    assert response.status == 400
    assert "not valid for its Content-Encoding" in await response.text()


async def test_a_gzipped_review_is_answered(client: Client) -> None:
    body = gzip.compress(json.dumps(admission_review(DGD, uid="gz")).encode())
    response = await client.post(
        DGD_PATH,
        data=body,
        headers={"Content-Type": "application/json", "Content-Encoding": "gzip"},
    )

    assert response.status == 200
    assert (await response.json())["response"]["uid"] == "gz"
