import pytest
from aiohttp.test_utils import TestClient, TestServer

import dynamo_operator.validation
from e2e.support.admission_reviews import admission_review
from tests.webhooks.reviews import DGD_PATH
from webhooks.app import build_app
from webhooks.endpoints import ENDPOINTS


def test_each_kind_is_sent_at_every_version_it_is_served_at_to_one_path() -> None:
    assert {(e.kind, e.versions, e.path) for e in ENDPOINTS} == {
        (
            "DynamoGraphDeployment",
            ("v1alpha1", "v1beta1"),
            "/validate-nvidia-com-v1alpha1-dynamographdeployment",
        ),
        (
            "DynamoComponentDeployment",
            ("v1alpha1", "v1beta1"),
            "/validate-nvidia-com-v1alpha1-dynamocomponentdeployment",
        ),
        ("DynamoModel", ("v1alpha1",), "/validate-nvidia-com-v1alpha1-dynamomodel"),
        ("DynamoComponent", ("v1alpha1",), "/validate-nvidia-com-v1alpha1-dynamocomponent"),
    }


@pytest.mark.anyio
async def test_a_v1beta1_request_is_denied_naming_the_v1beta1_fields() -> None:
    """What the API server sends once the rules list v1beta1: the object as the user wrote it."""
    graph = {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "llm", "namespace": "default"},
        "spec": {
            "components": [
                {"name": "Frontend", "podTemplate": {"spec": {"containers": [{"name": "main"}]}}},
                {
                    "name": "worker",
                    "podTemplate": {
                        "spec": {
                            "containers": [{"name": "main", "image": "i", "env": [{"name": ""}]}]
                        }
                    },
                },
            ]
        },
    }
    app = build_app(dynamo_operator.validation)
    async with TestClient(TestServer(app)) as client:
        response = await client.post(
            DGD_PATH, json=admission_review(graph, kind="DynamoGraphDeployment")
        )
        answer = (await response.json())["response"]

    assert answer["allowed"] is False
    assert answer["status"]["message"] == (
        "spec.components[0].podTemplate.spec.containers[0].image: must be set: the main container "
        "runs Dynamo (got None); spec.components[1].podTemplate.spec.containers[0].env[0].name: "
        "an environment variable name must not be empty"
    )
