"""Operator-wide image-build settings: the seed's configuration table, read from the environment.

Every variable keeps the upstream operator's name (``deploy/cloud/operator/internal/consts`` and
``internal/config`` of its v0.1-0.3 releases) so an upstream Deployment's env works unchanged:

=================================================== ======================================
``API_STORE_ENDPOINT``                              ``api_store_endpoint``
``DOCKER_REGISTRY_SERVER``                          ``docker_registry_server``
``DOCKER_REGISTRY_DYNAMO_COMPONENTS_REPOSITORY_NAME`` ``components_repository_name``
``DOCKER_REGISTRY_SECURE``                          ``docker_registry_secure``
``DOCKER_REGISTRY_SECRET_NAME``                     ``docker_registry_secret_name``
``DOCKER_REGISTRY_USERNAME``                        ``docker_registry_username``
``ADD_NAMESPACE_PREFIX_TO_IMAGE_NAME``              ``add_namespace_prefix_to_image_name``
``DYNAMO_IMAGE_BUILD_ENGINE``                       ``build_engine``
``BUILDKIT_URL``                                    ``buildkit_url``
``INTERNAL_IMAGES_BUILDKIT``                        ``buildkit_image``
``INTERNAL_IMAGES_BUILDKIT_ROOTLESS``               ``buildkit_rootless_image``
``INTERNAL_IMAGES_KANIKO``                          ``kaniko_image``
``INTERNAL_IMAGES_DYNAMO_COMPONENTS_DOWNLOADER``    ``downloader_image``
``ESTARGZ_ENABLED``                                 ``estargz_enabled``
``DYNAMO_IMAGE_BUILDER_NAMESPACE``                  ``image_builder_namespace``
``DYNAMO_SYSTEM_NAMESPACE``                         ``system_namespace``
``DYNAMO_IMAGE_BUILD_TIMEOUT`` (ours)                ``default_build_timeout``
=================================================== ======================================

Defaults are the seed's table where it gives one. Upstream read booleans as "is it exactly
``true``", so ``True`` or ``yes`` silently meant false; here a value that is not a boolean is an
error naming the variable, and so is any other value that cannot work (an engine that does not
exist, a registry written as a URL).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum
from typing import Final, TypeVar

from dynamo_operator.durations import InvalidDurationError, positive_duration
from dynamo_operator.image_build.errors import ImageBuildSettingsError

T = TypeVar("T")


class BuildEngine(StrEnum):
    """What builds the image: a BuildKit daemon (``buildctl`` in the Job) or kaniko in the Job."""

    BUILDKIT = "buildkit"
    BUILDKIT_ROOTLESS = "buildkit-rootless"
    """BuildKit whose client runs as an unprivileged user (the rootless image)."""
    KANIKO = "kaniko"


class Env:
    """The environment variables, by upstream's names."""

    API_STORE_ENDPOINT: Final = "API_STORE_ENDPOINT"
    DOCKER_REGISTRY_SERVER: Final = "DOCKER_REGISTRY_SERVER"
    COMPONENTS_REPOSITORY_NAME: Final = "DOCKER_REGISTRY_DYNAMO_COMPONENTS_REPOSITORY_NAME"
    DOCKER_REGISTRY_SECURE: Final = "DOCKER_REGISTRY_SECURE"
    DOCKER_REGISTRY_SECRET_NAME: Final = "DOCKER_REGISTRY_SECRET_NAME"
    DOCKER_REGISTRY_USERNAME: Final = "DOCKER_REGISTRY_USERNAME"
    ADD_NAMESPACE_PREFIX: Final = "ADD_NAMESPACE_PREFIX_TO_IMAGE_NAME"
    BUILD_ENGINE: Final = "DYNAMO_IMAGE_BUILD_ENGINE"
    BUILDKIT_URL: Final = "BUILDKIT_URL"
    BUILDKIT_IMAGE: Final = "INTERNAL_IMAGES_BUILDKIT"
    BUILDKIT_ROOTLESS_IMAGE: Final = "INTERNAL_IMAGES_BUILDKIT_ROOTLESS"
    KANIKO_IMAGE: Final = "INTERNAL_IMAGES_KANIKO"
    DOWNLOADER_IMAGE: Final = "INTERNAL_IMAGES_DYNAMO_COMPONENTS_DOWNLOADER"
    ESTARGZ_ENABLED: Final = "ESTARGZ_ENABLED"
    IMAGE_BUILDER_NAMESPACE: Final = "DYNAMO_IMAGE_BUILDER_NAMESPACE"
    SYSTEM_NAMESPACE: Final = "DYNAMO_SYSTEM_NAMESPACE"
    BUILD_TIMEOUT: Final = "DYNAMO_IMAGE_BUILD_TIMEOUT"


DEFAULT_BUILD_TIMEOUT: Final = timedelta(hours=1)


@dataclass(frozen=True, slots=True)
class ImageBuildSettings:
    api_store_endpoint: str = "http://dynamo-store"
    """Base URL of the API store the artifacts are downloaded from."""
    docker_registry_server: str | None = None
    """Registry (``host[:port][/path]``, no scheme) the built images are pushed to; building
    needs it."""
    components_repository_name: str = "dynamo-components"
    """Repository of the built images under the registry."""
    docker_registry_secure: bool = True
    """The registry speaks HTTPS; False pushes and checks over plain HTTP."""
    docker_registry_secret_name: str | None = None
    """Secret (``kubernetes.io/dockerconfigjson``) with the registry's push credentials, in the
    component's namespace; a component's ``dockerConfigJsonSecretName`` wins."""
    docker_registry_username: str | None = None
    """User for the registry check when no docker config Secret is given."""
    add_namespace_prefix_to_image_name: bool = False
    """Prefix the image tag with the component's namespace (one image per namespace)."""
    build_engine: BuildEngine = BuildEngine.BUILDKIT
    """What builds the images."""
    buildkit_url: str = "tcp://dynamo-platform-dynamo-operator-buildkitd:1234"
    """Address of the BuildKit daemon (``buildctl --addr``)."""
    buildkit_image: str = "moby/buildkit:v0.20.2"
    """Image of the builder container with the buildkit engine (it runs ``buildctl``)."""
    buildkit_rootless_image: str = "moby/buildkit:v0.20.2-rootless"
    """Image of the builder container with the buildkit-rootless engine."""
    kaniko_image: str = "gcr.io/kaniko-project/executor:debug"
    """Image of the builder container with the kaniko engine."""
    downloader_image: str = "busybox:1.36"
    """Image of the init container that downloads the artifact (needs sh, tar and wget or
    curl)."""
    estargz_enabled: bool = False
    """Push eStargz (lazily pullable) images; their tags end in ``.esgz``."""
    image_builder_namespace: str = "dynamo"
    """Namespace of the ``dynamo-image-builder-config`` ConfigMap."""
    system_namespace: str = "dynamo"
    """Namespace of the Dynamo platform (the operator's own)."""
    default_build_timeout: timedelta = DEFAULT_BUILD_TIMEOUT
    """How long a build may run when the component names no ``imageBuildTimeout``."""

    @property
    def builder_image(self) -> str:
        """The builder container's image for the configured engine."""
        return {
            BuildEngine.BUILDKIT: self.buildkit_image,
            BuildEngine.BUILDKIT_ROOTLESS: self.buildkit_rootless_image,
            BuildEngine.KANIKO: self.kaniko_image,
        }[self.build_engine]


def settings_from_environment(env: Mapping[str, str]) -> ImageBuildSettings:
    """The settings ``env`` (``os.environ``) gives; unset or empty variables keep the defaults.
    ImageBuildSettingsError names the first variable whose value cannot work, and why."""
    defaults = ImageBuildSettings()

    def read(name: str, parse: Callable[[str], T], default: T) -> T:
        raw = env.get(name, "").strip()
        if not raw:
            return default
        try:
            return parse(raw)
        except ValueError as error:
            raise ImageBuildSettingsError(f"{name}={raw!r}: {error}") from None

    return ImageBuildSettings(
        api_store_endpoint=read(Env.API_STORE_ENDPOINT, _http_url, defaults.api_store_endpoint),
        docker_registry_server=read(Env.DOCKER_REGISTRY_SERVER, _registry, None),
        components_repository_name=read(
            Env.COMPONENTS_REPOSITORY_NAME, _repository, defaults.components_repository_name
        ),
        docker_registry_secure=read(Env.DOCKER_REGISTRY_SECURE, _boolean, True),
        docker_registry_secret_name=read(Env.DOCKER_REGISTRY_SECRET_NAME, str, None),
        docker_registry_username=read(Env.DOCKER_REGISTRY_USERNAME, str, None),
        add_namespace_prefix_to_image_name=read(Env.ADD_NAMESPACE_PREFIX, _boolean, False),
        build_engine=read(Env.BUILD_ENGINE, _engine, defaults.build_engine),
        buildkit_url=read(Env.BUILDKIT_URL, _daemon_address, defaults.buildkit_url),
        buildkit_image=read(Env.BUILDKIT_IMAGE, str, defaults.buildkit_image),
        buildkit_rootless_image=read(
            Env.BUILDKIT_ROOTLESS_IMAGE, str, defaults.buildkit_rootless_image
        ),
        kaniko_image=read(Env.KANIKO_IMAGE, str, defaults.kaniko_image),
        downloader_image=read(Env.DOWNLOADER_IMAGE, str, defaults.downloader_image),
        estargz_enabled=read(Env.ESTARGZ_ENABLED, _boolean, False),
        image_builder_namespace=read(
            Env.IMAGE_BUILDER_NAMESPACE, str, defaults.image_builder_namespace
        ),
        system_namespace=read(Env.SYSTEM_NAMESPACE, str, defaults.system_namespace),
        default_build_timeout=read(Env.BUILD_TIMEOUT, _timeout, DEFAULT_BUILD_TIMEOUT),
    )


def _boolean(raw: str) -> bool:
    lowered = raw.lower()
    if lowered in ("true", "1"):
        return True
    if lowered in ("false", "0"):
        return False
    raise ValueError("not a boolean; use true or false")


def _engine(raw: str) -> BuildEngine:
    try:
        return BuildEngine(raw.lower())
    except ValueError:
        choices = ", ".join(engine.value for engine in BuildEngine)
        raise ValueError(f"unknown image build engine; use one of {choices}") from None


def _http_url(raw: str) -> str:
    if not raw.startswith(("http://", "https://")) or len(raw.split("://", 1)[1]) == 0:
        raise ValueError("not an http:// or https:// URL")
    return raw.rstrip("/")


def _registry(raw: str) -> str:
    if "://" in raw:
        raise ValueError("a registry is host[:port][/path] without a scheme (e.g. registry:5000)")
    if any(character.isspace() for character in raw) or raw.startswith("/"):
        raise ValueError("not a registry host[:port][/path]")
    return raw.rstrip("/")


def _repository(raw: str) -> str:
    if raw != raw.lower() or any(character.isspace() or character == ":" for character in raw):
        raise ValueError("a repository name is lowercase, without spaces or ':'")
    return raw.strip("/")


def _daemon_address(raw: str) -> str:
    if "://" not in raw:
        raise ValueError("a BuildKit address has a scheme (tcp://host:port or unix:///path)")
    return raw


def _timeout(raw: str) -> timedelta:
    try:
        return positive_duration(raw)
    except InvalidDurationError as error:
        raise ValueError(str(error)) from None
