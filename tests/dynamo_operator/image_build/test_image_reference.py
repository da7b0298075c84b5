import hashlib

import pytest

from dynamo_operator.api import DynamoComponent
from dynamo_operator.errors import InvalidComponentReferenceError
from dynamo_operator.image_build import (
    STORAGE_NAMESPACE_ANNOTATION,
    ImageBuildSettings,
    ImageBuildSettingsError,
    component_image,
    image_reference,
    repository_uri,
)
from dynamo_operator.image_build.image_reference import MAX_TAG_LENGTH

SETTINGS = ImageBuildSettings(docker_registry_server="registry:5000")


def md5(text: str) -> str:
    return hashlib.md5(text.encode(), usedforsecurity=False).hexdigest()


def test_the_image_is_registry_repository_and_upstream_tag() -> None:
    assert image_reference(SETTINGS, "llm", "frontend", "jh2o6dqzpsgfued4") == (
        "registry:5000/dynamo-components:dynamo.frontend.jh2o6dqzpsgfued4"
    )


def test_the_namespace_prefix_and_the_estargz_suffix() -> None:
    settings = ImageBuildSettings(
        docker_registry_server="registry:5000",
        components_repository_name="built",
        add_namespace_prefix_to_image_name=True,
        estargz_enabled=True,
    )

    assert image_reference(settings, "llm", "frontend", "v1") == (
        "registry:5000/built:dynamo.llm.frontend.v1.esgz"
    )
    assert image_reference(settings, "llm", "frontend", "v1", storage_namespace="shared") == (
        "registry:5000/built:dynamo.shared.frontend.v1.esgz"
    )


def test_a_tag_over_128_characters_keeps_the_prefix_and_hashes_the_rest() -> None:
    name, version = "n" * 63, "v" * 63
    settings = ImageBuildSettings(
        docker_registry_server="r", add_namespace_prefix_to_image_name=True
    )

    image = image_reference(settings, "team", name, version)

    assert image == f"r/dynamo-components:dynamo.team.{md5(f'{name}.{version}')}"


def test_a_prefix_too_long_for_the_hashed_tag_is_hashed_with_it() -> None:
    namespace = "s" * 100

    tag = image_reference(SETTINGS, "llm", "a" * 20, "b", storage_namespace=namespace).split(":")[
        -1
    ]

    assert tag == f"dynamo.{md5(f'{namespace}.' + 'a' * 20 + '.b')}"
    assert len(tag) <= MAX_TAG_LENGTH


def test_without_a_registry_building_is_impossible_and_says_so() -> None:
    with pytest.raises(ImageBuildSettingsError, match="DOCKER_REGISTRY_SERVER is not set"):
        repository_uri(ImageBuildSettings())


def component(spec: dict[str, str], annotations: dict[str, str] | None = None) -> DynamoComponent:
    return DynamoComponent.model_validate(
        {
            "metadata": {"name": "frontend--v1", "namespace": "llm", "annotations": annotations},
            "spec": spec,
        }
    )


def test_a_component_s_image_is_its_spec_image_or_the_built_one() -> None:
    assert component_image(component({"dynamoComponent": "frontend:v1"}), SETTINGS) == (
        "registry:5000/dynamo-components:dynamo.frontend.v1"
    )
    given = component({"dynamoComponent": "frontend:v1", "image": "mine/frontend:1"})
    assert component_image(given, ImageBuildSettings()) == "mine/frontend:1"
    shared = component(
        {"dynamoComponent": "frontend:v1"}, annotations={STORAGE_NAMESPACE_ANNOTATION: "shared"}
    )
    assert component_image(shared, SETTINGS).endswith(":dynamo.shared.frontend.v1")


def test_a_bad_reference_cannot_name_an_image() -> None:
    with pytest.raises(InvalidComponentReferenceError):
        component_image(component({"dynamoComponent": "frontend"}), SETTINGS)
