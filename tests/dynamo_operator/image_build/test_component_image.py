from typing import Any

from dynamo_operator.api import DynamoComponentDeployment
from dynamo_operator.image_build import awaited_dynamo_component, on_built_image


def dcd(**spec: Any) -> DynamoComponentDeployment:
    return DynamoComponentDeployment.model_validate(
        {"metadata": {"name": "solo", "namespace": "team"}, "spec": spec}
    )


def test_a_component_naming_an_artifact_without_an_image_waits_for_its_dynamo_component() -> None:
    assert awaited_dynamo_component(dcd(dynamoComponent="web:v1")) == "web--v1"


def test_a_component_with_its_own_image_or_no_artifact_waits_for_nothing() -> None:
    own = {"mainContainer": {"image": "registry/web:1"}}
    assert awaited_dynamo_component(dcd(dynamoComponent="web:v1", extraPodSpec=own)) is None
    assert awaited_dynamo_component(dcd()) is None


def test_the_built_image_goes_to_the_main_container_and_the_rest_stays() -> None:
    before = dcd(
        dynamoComponent="web:v1",
        replicas=2,
        extraPodSpec={"nodeSelector": {"a": "b"}, "mainContainer": {"args": ["serve"]}},
    )
    after = on_built_image(before, "registry/dynamo-components:dynamo.web.v1")
    wire = after.to_wire()["spec"]
    assert wire["extraPodSpec"]["mainContainer"] == {
        "args": ["serve"],
        "image": "registry/dynamo-components:dynamo.web.v1",
    }
    assert wire["extraPodSpec"]["nodeSelector"] == {"a": "b"}
    assert wire["replicas"] == 2
    assert awaited_dynamo_component(before) == "web--v1"  # the original is not changed
    assert on_built_image(dcd(dynamoComponent="web:v1"), "i").to_wire()["spec"]["extraPodSpec"] == {
        "mainContainer": {"image": "i"}
    }
