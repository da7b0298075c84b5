"""The image a DynamoComponent builds: ``{registry}/{repository}:dynamo.{name}.{version}``.

The tag follows the upstream operator exactly, so an image an upstream operator pushed is found
(and not rebuilt) by this one: ``dynamo.`` + an optional ``<namespace>.`` prefix + ``name.version``
(+ ``.esgz`` for eStargz images). A tag may have at most 128 characters; a longer one keeps the
prefix and replaces ``name.version[.esgz]`` by its MD5 in hex (32 characters), and should the
prefix alone still be too long, the whole tag becomes ``dynamo.`` + the MD5 of prefix and tail.
MD5 here is a name, not a security measure: it only has to be stable and match upstream's.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Final

from dynamo_operator.api import DynamoComponent
from dynamo_operator.image_build.errors import ImageBuildSettingsError
from dynamo_operator.image_build.settings import Env, ImageBuildSettings
from dynamo_operator.naming import parse_component_reference

MAX_TAG_LENGTH: Final = 128
TAG_PREFIX: Final = "dynamo."
ESTARGZ_SUFFIX: Final = ".esgz"
STORAGE_NAMESPACE_ANNOTATION: Final = "nvidia.com/dynamo-storage-namespace"
"""On a DynamoComponent: the tag prefix to use instead of its namespace (upstream's key)."""


def repository_uri(settings: ImageBuildSettings) -> str:
    """``{DOCKER_REGISTRY_SERVER}/{repository}``; ImageBuildSettingsError without a registry."""
    if not settings.docker_registry_server:
        raise ImageBuildSettingsError(
            f"{Env.DOCKER_REGISTRY_SERVER} is not set: the operator has no registry to push "
            "built images to (or give the DynamoComponent a spec.image)"
        )
    return f"{settings.docker_registry_server}/{settings.components_repository_name}"


def _md5(text: str) -> str:
    return hashlib.md5(text.encode(), usedforsecurity=False).hexdigest()


def image_tag(settings: ImageBuildSettings, namespace_prefix: str, name: str, version: str) -> str:
    """The tag alone; ``namespace_prefix`` is empty or a namespace (without the dot)."""
    prefix = f"{namespace_prefix}." if namespace_prefix else ""
    tail = f"{name}.{version}" + (ESTARGZ_SUFFIX if settings.estargz_enabled else "")
    tag = f"{TAG_PREFIX}{prefix}{tail}"
    if len(tag) <= MAX_TAG_LENGTH:
        return tag
    tag = f"{TAG_PREFIX}{prefix}{_md5(tail)}"
    if len(tag) <= MAX_TAG_LENGTH:
        return tag
    return f"{TAG_PREFIX}{_md5(prefix + tail)}"


def image_reference(
    settings: ImageBuildSettings,
    namespace: str,
    name: str,
    version: str,
    *,
    storage_namespace: str | None = None,
) -> str:
    """The image built for artifact ``name:version`` by a component in ``namespace``.

    The tag's namespace prefix is ``storage_namespace`` when given (the component's
    ``nvidia.com/dynamo-storage-namespace`` annotation), else ``namespace`` when
    ADD_NAMESPACE_PREFIX_TO_IMAGE_NAME is true, else none.
    """
    prefix = storage_namespace or (namespace if settings.add_namespace_prefix_to_image_name else "")
    return f"{repository_uri(settings)}:{image_tag(settings, prefix, name, version)}"


def component_image(component: DynamoComponent, settings: ImageBuildSettings) -> str:
    """The image of a component: its ``spec.image`` when set (nothing to build), else the one to
    build. Raises InvalidComponentReferenceError for a bad ``spec.dynamoComponent`` and
    ImageBuildSettingsError when there is no registry."""
    if component.spec.image:
        return component.spec.image
    reference = parse_component_reference(component.spec.dynamo_component)
    annotations: Mapping[str, str] = component.metadata.annotations or {}
    return image_reference(
        settings,
        component.metadata.namespace or "",
        reference.name,
        reference.version,
        storage_namespace=annotations.get(STORAGE_NAMESPACE_ANNOTATION) or None,
    )
