"""The Job that builds a DynamoComponent's image: download the artifact, build, push.

One Job per (component, build inputs). Its name ends in the first characters of a hash of
everything it would do, and the whole hash is in its ``nvidia.com/dynamo-request-hash``
annotation (upstream's key): a controller that finds a Job of the component with another hash
deletes it and creates the new one, which cannot collide with the old name while it terminates.
The Job never retries (``backoffLimit: 0``): a Dockerfile that fails fails again, and a failure the
user can read beats a retry loop. ``activeDeadlineSeconds`` is the build timeout, so Kubernetes
kills a build that hangs. It is owned by the component (garbage-collected with it).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any, Final

from dynamo_operator.api import KIND_COMPONENT, DynamoComponent
from dynamo_operator.builders import controller_reference, deep_merge, merge_env
from dynamo_operator.constants import Labels
from dynamo_operator.durations import InvalidDurationError, parse_duration
from dynamo_operator.image_build.builder_config import BuilderConfig, check_pod_spec_overrides
from dynamo_operator.image_build.containers import (
    DOCKER_CONFIG_VOLUME,
    WORKSPACE_VOLUME,
    build_builder_container,
    build_downloader_container,
)
from dynamo_operator.image_build.errors import ImageBuildError
from dynamo_operator.image_build.settings import ImageBuildSettings
from dynamo_operator.naming import parse_component_reference

JsonDict = dict[str, Any]

JOB_NAME_PREFIX: Final = "dynamo-image-builder-"
IMAGE_BUILDER_LABEL: Final = "nvidia.com/is-dynamo-image-builder"
"""``"true"`` on image builder Jobs and their pods (upstream's key)."""
SPEC_HASH_ANNOTATION: Final = "nvidia.com/dynamo-request-hash"
"""On an image builder Job: the hash of its inputs; a Job with another hash is out of date."""
_HASH_IN_NAME: Final = 10
_MAX_JOB_NAME: Final = 63  # a Job's name is a label value on its pods


def artifact_download_url(settings: ImageBuildSettings, component: DynamoComponent) -> str:
    """``spec.downloadUrl``, else the API store's route for the artifact."""
    if component.spec.download_url:
        return component.spec.download_url
    reference = parse_component_reference(component.spec.dynamo_component)
    return (
        f"{settings.api_store_endpoint.rstrip('/')}/api/v1/dynamo_components/"
        f"{reference.name}/versions/{reference.version}/download"
    )


def build_timeout_seconds(component: DynamoComponent, settings: ImageBuildSettings) -> int:
    """Whole seconds a build may run: ``spec.imageBuildTimeout`` or the operator's default."""
    text = component.spec.image_build_timeout
    try:
        timeout = parse_duration(text) if text else settings.default_build_timeout
    except InvalidDurationError as error:
        raise ImageBuildError(f"spec.imageBuildTimeout: {error}") from None
    if timeout.total_seconds() <= 0:
        raise ImageBuildError(f"spec.imageBuildTimeout: {text!r} must be more than zero")
    return max(1, math.ceil(timeout.total_seconds()))


def image_builder_labels(component_name: str) -> dict[str, str]:
    """Labels of a component's builder Jobs and pods; the controller lists its Jobs by them."""
    return {Labels.COMPONENT: component_name, IMAGE_BUILDER_LABEL: "true"}


def docker_config_secret_name(
    component: DynamoComponent, settings: ImageBuildSettings
) -> str | None:
    """The push credentials' Secret: the component's, else the operator's."""
    return component.spec.docker_config_json_secret_name or settings.docker_registry_secret_name


def _pod_template(
    component: DynamoComponent,
    settings: ImageBuildSettings,
    image: str,
    config: BuilderConfig,
) -> JsonDict:
    spec = component.spec
    name = str(component.metadata.name or "")
    secret = docker_config_secret_name(component, settings)
    downloader = build_downloader_container(
        settings,
        spec.dynamo_component,
        artifact_download_url(settings, component),
        spec.downloader_container_env_from or (),
    )
    builder = build_builder_container(
        settings, image, [*config.build_args, *(spec.build_args or ())], config.builder_args, secret
    )
    extra_env = [env.to_wire() for env in spec.image_builder_extra_container_env or ()]
    for container in (downloader, builder):
        container["env"] = merge_env(container["env"], config.extra_container_env, extra_env)
    resources = spec.image_builder_container_resources or config.default_container_resources
    if resources:
        builder["resources"] = dict(resources)
    volumes: list[JsonDict] = [{"name": WORKSPACE_VOLUME, "emptyDir": {}}]
    if secret:
        volumes.append(
            {
                "name": DOCKER_CONFIG_VOLUME,
                "secret": {
                    "secretName": secret,
                    "items": [{"key": ".dockerconfigjson", "path": "config.json"}],
                },
            }
        )
    pod_spec: JsonDict = {
        "restartPolicy": "Never",
        "initContainers": [downloader],
        "containers": [builder],
        "volumes": volumes,
    }
    if spec.image_pull_secrets:
        pod_spec["imagePullSecrets"] = [{"name": secret.name} for secret in spec.image_pull_secrets]
    overrides = spec.image_builder_extra_pod_spec or {}
    check_pod_spec_overrides("spec.imageBuilderExtraPodSpec", overrides)
    pod_spec = deep_merge(deep_merge(pod_spec, config.extra_pod_spec), overrides)
    extra_metadata = spec.image_builder_extra_pod_metadata
    labels = {
        **config.extra_pod_labels,
        **((extra_metadata.labels if extra_metadata else None) or {}),
        **image_builder_labels(name),
    }
    annotations = {
        **config.extra_pod_annotations,
        **((extra_metadata.annotations if extra_metadata else None) or {}),
    }
    metadata: JsonDict = {"labels": dict(sorted(labels.items()))}
    if annotations:
        metadata["annotations"] = dict(sorted(annotations.items()))
    return {"metadata": metadata, "spec": pod_spec}


def spec_hash(job: Mapping[str, Any]) -> str:
    """SHA-256 of a Job's labels and spec: equal inputs, equal hash, whatever the dict order."""
    content = {"labels": job["metadata"].get("labels"), "spec": job["spec"]}
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()


def image_builder_job_name(component_name: str, hash_value: str) -> str:
    """``dynamo-image-builder-<component>-<hash prefix>``, at most 63 characters."""
    room = _MAX_JOB_NAME - len(JOB_NAME_PREFIX) - 1 - _HASH_IN_NAME
    stem = component_name[:room].rstrip("-.")
    return f"{JOB_NAME_PREFIX}{stem}-{hash_value[:_HASH_IN_NAME]}"


def build_image_builder_job(
    component: DynamoComponent,
    settings: ImageBuildSettings,
    image: str,
    builder_config: BuilderConfig,
) -> JsonDict:
    """The Job building ``image`` (``component_image(component, settings)``) for ``component``.

    Raises ImageBuildError (a bad ``imageBuildTimeout``, an extra pod spec that sets the
    containers) or InvalidComponentReferenceError (a bad ``dynamoComponent``): specs validation
    refuses.
    """
    name = str(component.metadata.name or "")
    job: JsonDict = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "namespace": component.metadata.namespace,
            "labels": image_builder_labels(name),
            "ownerReferences": [controller_reference(KIND_COMPONENT, name, component.metadata.uid)],
        },
        "spec": {
            "backoffLimit": 0,
            "activeDeadlineSeconds": build_timeout_seconds(component, settings),
            "template": _pod_template(component, settings, image, builder_config),
        },
    }
    hash_value = spec_hash(job)
    job["metadata"] = {
        "name": image_builder_job_name(name, hash_value),
        **job["metadata"],
        "annotations": {SPEC_HASH_ANNOTATION: hash_value},
    }
    return job
