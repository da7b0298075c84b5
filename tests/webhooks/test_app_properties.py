"""Property: whatever is posted, the answer is a 400 with a reason or a well-formed review."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from e2e.support.admission_reviews import admission_review
from tests.webhooks.reviews import DENIAL, DGD_PATH, MODEL_PATH, ScriptedValidator
from webhooks.app import build_app

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=20,
)
operations = st.sampled_from(["CREATE", "UPDATE", "DELETE", "CONNECT", "", "create", 7, None])
kinds = st.sampled_from(["DynamoGraphDeployment", "DynamoModel", "Pod", "", None, 3])
objects = st.one_of(
    st.none(),
    json_values,
    st.fixed_dictionaries(
        {
            "kind": kinds,
            "metadata": st.one_of(
                json_values, st.fixed_dictionaries({"deletionTimestamp": json_values})
            ),
        },
        optional={"spec": json_values},
    ),
)


@st.composite
def reviews(draw: st.DrawFn) -> Any:
    """Mostly review-shaped documents with random holes, plus arbitrary JSON."""
    review = admission_review(None, uid=draw(st.text(min_size=1, max_size=8)))
    request = review["request"]
    request["operation"] = draw(operations)
    request["kind"] = draw(st.one_of(json_values, st.fixed_dictionaries({"kind": kinds})))
    request["object"] = draw(objects)
    request["oldObject"] = draw(objects)
    for key in draw(st.lists(st.sampled_from(sorted(request)), max_size=3, unique=True)):
        del request[key]
    if draw(st.booleans()):
        review["apiVersion"] = draw(st.sampled_from(["admission.k8s.io/v1beta1", "", None]))
    return draw(st.one_of(st.just(review), json_values))


async def exchange(client: TestClient[Any, Any], body: bytes) -> None:
    headers = {"Content-Type": "application/json"}
    for path in (DGD_PATH, MODEL_PATH):
        response = await client.post(path, data=body, headers=headers)
        text = await response.text()
        if response.status == 400:
            assert text.strip(), "a 400 must say why"
            continue
        assert response.status == 200, text
        answer = json.loads(text)
        assert answer["apiVersion"] == "admission.k8s.io/v1"
        assert answer["kind"] == "AdmissionReview"
        sent = json.loads(body)
        assert answer["response"]["uid"] == sent["request"]["uid"]
        assert isinstance(answer["response"]["allowed"], bool)
        if not answer["response"]["allowed"]:
            status = answer["response"]["status"]
            assert status["code"] in (400, 403)
            assert status["message"]


def run_against_app(bodies: list[bytes], validator: ScriptedValidator) -> None:
    async def main() -> None:
        async with TestClient(TestServer(build_app(validator))) as client:
            for body in bodies:
                await exchange(client, body)

    anyio.run(main, backend="asyncio")


@pytest.mark.parametrize("denying", [False, True])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents=st.lists(reviews(), min_size=1, max_size=5))
def test_every_review_gets_a_well_formed_answer(documents: list[Any], denying: bool) -> None:
    validator = ScriptedValidator(
        create_result=DENIAL if denying else ScriptedValidator().create_result,
        update_result=DENIAL if denying else ScriptedValidator().update_result,
    )
    run_against_app([json.dumps(document).encode() for document in documents], validator)


@settings(max_examples=100, deadline=None)
@given(body=st.binary(max_size=200))
def test_random_bytes_never_crash_the_server(body: bytes) -> None:
    run_against_app([body], ScriptedValidator())
