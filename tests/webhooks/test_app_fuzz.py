"""Fuzz: AdmissionReviews carrying generated Dynamo objects, through the app and the real
validators, always get a well-formed answer (HTTP 200 with a review, or 400 with a reason)."""

from __future__ import annotations

import json
from typing import Any

import anyio
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import event, given
from hypothesis import strategies as st

import dynamo_operator.validation
from e2e.support.admission_reviews import admission_review
from tests.fixtures.documents import FUZZ, documents, nested
from tests.webhooks.reviews import DCD_PATH, DGD_PATH, MODEL_PATH
from webhooks.app import build_app

PATHS = {
    DGD_PATH: "DynamoGraphDeployment",
    DCD_PATH: "DynamoComponentDeployment",
    MODEL_PATH: "DynamoModel",
}
objects = documents(wrong=5) | st.builds(
    lambda levels: {"kind": "DynamoGraphDeployment", "spec": nested(levels)},
    st.integers(min_value=90, max_value=400),
)


@st.composite
def exchanges(draw: st.DrawFn) -> tuple[str, bytes]:
    path = draw(st.sampled_from(sorted(PATHS)))
    operation = draw(st.sampled_from(["CREATE", "UPDATE", "DELETE", "CONNECT"]))
    obj, old = draw(objects), draw(st.none() | objects)
    review = admission_review(obj, operation=operation, old=old, kind=PATHS[path])
    if draw(st.booleans()):
        review["request"]["kind"]["kind"] = obj.get("kind")  # as the object says
    body = json.dumps(review).encode()
    if draw(st.integers(min_value=0, max_value=9)) == 0:  # now and then, a damaged body
        cut = draw(st.integers(min_value=0, max_value=len(body)))
        body = body[:cut] + draw(st.binary(max_size=8)) + body[cut + 1 :]
    return path, body


@FUZZ
@given(sent=st.lists(exchanges(), min_size=1, max_size=4))
def test_every_review_of_generated_objects_gets_a_well_formed_answer(
    sent: list[tuple[str, bytes]],
) -> None:
    async def main() -> None:
        async with TestClient(TestServer(build_app(dynamo_operator.validation))) as client:
            for path, body in sent:
                response = await client.post(
                    path, data=body, headers={"Content-Type": "application/json"}
                )
                text = await response.text()
                if response.status == 400:
                    event("400")
                    assert text.strip()
                    continue
                assert response.status == 200, text
                answer: dict[str, Any] = json.loads(text)["response"]
                assert answer["uid"] == json.loads(body)["request"]["uid"]
                event("allowed" if answer["allowed"] else f"denied {answer['status']['code']}")
                if not answer["allowed"]:
                    assert answer["status"]["code"] in (400, 403)
                    assert answer["status"]["message"]

    anyio.run(main, backend="asyncio")
