"""``/convert``: the ConversionReviews the API server sends, over HTTP as it sends them."""

from __future__ import annotations

from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from dynamo_operator.conversion import convert
from tests.webhooks.reviews import alpha_graph
from webhooks.conversion import CONVERT_PATH

pytestmark = pytest.mark.anyio

Client = TestClient[Any, Any]
ALPHA_GRAPH = {
    **alpha_graph(),
    "status": {"state": "successful", "services": {"decode": {"replicas": 2}}},
}


def review(desired: Any, objects: Any, uid: str = "c-1") -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "ConversionReview",
        "request": {"uid": uid, "desiredAPIVersion": desired, "objects": objects},
    }


async def post(client: Client, body: Any) -> dict[str, Any]:
    response = await client.post(CONVERT_PATH, json=body)
    assert response.status == 200
    answer: dict[str, Any] = await response.json()
    assert answer["apiVersion"] == "apiextensions.k8s.io/v1"
    assert answer["kind"] == "ConversionReview"
    return answer["response"]  # type: ignore[no-any-return]


async def test_every_object_is_converted_and_the_uid_echoed(client: Client) -> None:
    second = {**ALPHA_GRAPH, "metadata": {**ALPHA_GRAPH["metadata"], "name": "other"}}
    response = await post(client, review("nvidia.com/v1beta1", [ALPHA_GRAPH, second]))
    assert response["uid"] == "c-1"
    assert response["result"] == {"status": "Success"}
    converted = response["convertedObjects"]
    assert converted == [
        convert(ALPHA_GRAPH, "nvidia.com/v1beta1"),
        convert(second, "nvidia.com/v1beta1"),
    ]
    graph = converted[0]
    assert graph["apiVersion"] == "nvidia.com/v1beta1"
    assert [c["name"] for c in graph["spec"]["components"]] == ["Frontend", "decode"]
    assert graph["status"]["components"] == {"decode": {"replicas": 2}}
    assert graph["metadata"] == ALPHA_GRAPH["metadata"], "only annotations may change"


async def test_converting_back_gives_the_stored_object(client: Client) -> None:
    beta = (await post(client, review("nvidia.com/v1beta1", [ALPHA_GRAPH])))["convertedObjects"]
    back = await post(client, review("nvidia.com/v1alpha1", beta))
    assert back["convertedObjects"] == [ALPHA_GRAPH]


@pytest.mark.parametrize(
    ("desired", "objects", "message"),
    [
        ("nvidia.com/v2", [ALPHA_GRAPH], "DynamoGraphDeployment team-a/demo: "),
        ("nvidia.com/v1beta1", [{"kind": "Pod", "apiVersion": "v1"}], "Pod (unnamed): "),
        ("nvidia.com/v1beta1", "not a list", "request.objects must be a list"),
        ("nvidia.com/v1beta1", [ALPHA_GRAPH, 7], "request.objects[1] is not an object"),
        (None, [ALPHA_GRAPH], "request.desiredAPIVersion must be a non-empty string"),
    ],
)
async def test_what_cannot_be_converted_fails_the_review_naming_the_object(
    client: Client, desired: Any, objects: Any, message: str
) -> None:
    response = await post(client, review(desired, objects, uid="c-9"))
    assert response["uid"] == "c-9"
    assert response["result"]["status"] == "Failed"
    assert message in response["result"]["message"]
    assert "convertedObjects" not in response


async def test_a_graph_whose_services_are_not_a_map_is_refused_not_crashed(
    client: Client,
) -> None:
    hostile = {**ALPHA_GRAPH, "spec": {"services": [1, 2, 3]}}
    response = await post(client, review("nvidia.com/v1beta1", [hostile]))
    if response["result"]["status"] == "Failed":
        assert "DynamoGraphDeployment team-a/demo" in response["result"]["message"]
    else:  # or converted with what cannot be said preserved, and converted back exactly
        back = await post(client, review("nvidia.com/v1alpha1", response["convertedObjects"]))
        assert back["convertedObjects"] == [hostile]


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (["not", "an", "object"], "not a JSON object"),
        ({"kind": "AdmissionReview", "apiVersion": "admission.k8s.io/v1"}, "ConversionReview"),
        ({"kind": "ConversionReview", "apiVersion": "apiextensions.k8s.io/v1beta1"}, "v1beta1"),
        ({"kind": "ConversionReview", "apiVersion": "apiextensions.k8s.io/v1"}, "no request"),
        (review("nvidia.com/v1beta1", [], uid=""), "no uid"),
    ],
)
async def test_a_review_without_a_uid_to_answer_gets_http_400(
    client: Client, body: Any, reason: str
) -> None:
    response = await client.post(CONVERT_PATH, json=body)
    assert response.status == 400
    assert reason in await response.text()


async def test_a_body_that_is_not_json_gets_http_400(client: Client) -> None:
    response = await client.post(
        CONVERT_PATH, data=b"{", headers={"Content-Type": "application/json"}
    )
    assert response.status == 400
    assert "not valid JSON" in await response.text()
