from datetime import timedelta

import pytest

from dynamo_operator.image_build import (
    BuildEngine,
    ImageBuildSettings,
    ImageBuildSettingsError,
    settings_from_environment,
)


def test_an_empty_environment_gives_the_seed_table_defaults() -> None:
    settings = settings_from_environment({})

    assert settings == ImageBuildSettings()
    assert settings.api_store_endpoint == "http://dynamo-store"
    assert settings.components_repository_name == "dynamo-components"
    assert settings.docker_registry_secure is True
    assert settings.build_engine is BuildEngine.BUILDKIT
    assert settings.buildkit_url == "tcp://dynamo-platform-dynamo-operator-buildkitd:1234"
    assert settings.buildkit_image == "moby/buildkit:v0.20.2"
    assert settings.estargz_enabled is False
    assert settings.add_namespace_prefix_to_image_name is False
    assert (settings.image_builder_namespace, settings.system_namespace) == ("dynamo", "dynamo")
    assert settings.docker_registry_server is None


def test_every_upstream_variable_is_read() -> None:
    settings = settings_from_environment(
        {
            "API_STORE_ENDPOINT": "http://store.dynamo:8080/",
            "DOCKER_REGISTRY_SERVER": "registry.local:5000/team/",
            "DOCKER_REGISTRY_DYNAMO_COMPONENTS_REPOSITORY_NAME": "built",
            "DOCKER_REGISTRY_SECURE": "false",
            "DOCKER_REGISTRY_SECRET_NAME": "push-creds",
            "DOCKER_REGISTRY_USERNAME": "robot",
            "ADD_NAMESPACE_PREFIX_TO_IMAGE_NAME": "True",
            "DYNAMO_IMAGE_BUILD_ENGINE": "kaniko",
            "BUILDKIT_URL": "unix:///run/buildkit/buildkitd.sock",
            "INTERNAL_IMAGES_BUILDKIT": "buildkit:1",
            "INTERNAL_IMAGES_BUILDKIT_ROOTLESS": "buildkit:1-rootless",
            "INTERNAL_IMAGES_KANIKO": "kaniko:1",
            "INTERNAL_IMAGES_DYNAMO_COMPONENTS_DOWNLOADER": "curl:1",
            "ESTARGZ_ENABLED": "1",
            "DYNAMO_IMAGE_BUILDER_NAMESPACE": "builds",
            "DYNAMO_SYSTEM_NAMESPACE": "dynamo-system",
            "DYNAMO_IMAGE_BUILD_TIMEOUT": "45m",
            "UNRELATED": "ignored",
        }
    )

    assert settings == ImageBuildSettings(
        api_store_endpoint="http://store.dynamo:8080",
        docker_registry_server="registry.local:5000/team",
        components_repository_name="built",
        docker_registry_secure=False,
        docker_registry_secret_name="push-creds",
        docker_registry_username="robot",
        add_namespace_prefix_to_image_name=True,
        build_engine=BuildEngine.KANIKO,
        buildkit_url="unix:///run/buildkit/buildkitd.sock",
        buildkit_image="buildkit:1",
        buildkit_rootless_image="buildkit:1-rootless",
        kaniko_image="kaniko:1",
        downloader_image="curl:1",
        estargz_enabled=True,
        image_builder_namespace="builds",
        system_namespace="dynamo-system",
        default_build_timeout=timedelta(minutes=45),
    )
    assert settings.builder_image == "kaniko:1"


def test_an_empty_variable_keeps_the_default() -> None:
    assert settings_from_environment({"DYNAMO_IMAGE_BUILD_ENGINE": " "}) == ImageBuildSettings()


@pytest.mark.parametrize(
    ("name", "value", "why"),
    [
        ("DOCKER_REGISTRY_SECURE", "yes", "not a boolean; use true or false"),
        ("ESTARGZ_ENABLED", "enabled", "not a boolean"),
        ("DYNAMO_IMAGE_BUILD_ENGINE", "docker", "use one of buildkit, buildkit-rootless, kaniko"),
        ("DOCKER_REGISTRY_SERVER", "https://registry:5000", "without a scheme"),
        ("API_STORE_ENDPOINT", "dynamo-store", "not an http:// or https:// URL"),
        ("BUILDKIT_URL", "buildkitd:1234", "tcp://host:port"),
        ("DOCKER_REGISTRY_DYNAMO_COMPONENTS_REPOSITORY_NAME", "Built", "lowercase"),
        ("DYNAMO_IMAGE_BUILD_TIMEOUT", "an hour", "is not a duration"),
        ("DYNAMO_IMAGE_BUILD_TIMEOUT", "0s", "more than zero"),
    ],
)
def test_a_bad_value_names_the_variable_and_why(name: str, value: str, why: str) -> None:
    with pytest.raises(ImageBuildSettingsError) as raised:
        settings_from_environment({name: value})

    assert str(raised.value).startswith(f"{name}={value!r}: ")
    assert why in str(raised.value)


def test_each_engine_has_its_builder_image() -> None:
    settings = ImageBuildSettings()
    for engine, image in [
        (BuildEngine.BUILDKIT, settings.buildkit_image),
        (BuildEngine.BUILDKIT_ROOTLESS, settings.buildkit_rootless_image),
        (BuildEngine.KANIKO, settings.kaniko_image),
    ]:
        assert ImageBuildSettings(build_engine=engine).builder_image == image
