"""DynamoComponent: an artifact (``name:version`` in the API store) and the image built from it.

The v0.1-0.3 workflow of the upstream operator (seed 000): ``dynamo build --push`` stores an
artifact, a graph names it in ``spec.dynamoComponent``, and a DynamoComponent builds its container
image in a Job unless ``spec.image`` names one. Field names and JSON keys are upstream's, so its
manifests apply unchanged.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from dynamo_operator.api.base import ApiModel, EnvVar, FreeFormObject, ObjectMeta
from dynamo_operator.api.conditions import Conditions
from dynamo_operator.api.constants import API_VERSION, KIND_COMPONENT
from dynamo_operator.api.shared_spec import LIST_MAP_BY_NAME, ExtraPodMetadata


class LocalObjectReference(ApiModel):
    """A reference to an object in the same namespace, by name (``corev1.LocalObjectReference``)."""

    name: str
    """Name of the referenced object."""


class DynamoComponentSpec(ApiModel):
    """Desired state of a DynamoComponent: which artifact, and how to build its image."""

    dynamo_component: Annotated[str, Field(min_length=1)]
    """The artifact as ``name:version``, the tag ``dynamo build --push`` printed."""
    download_url: str | None = None
    """Where the image builder downloads the artifact; the API store's download route if unset."""
    image: str | None = None
    """A ready image for this artifact; when set nothing is built."""
    image_build_timeout: str | None = None
    """How long a build may take, as a Go duration (e.g. 30m); the operator's default if unset."""
    build_args: list[str] | None = None
    """Docker build arguments (``KEY=VALUE``), after those of the image builder ConfigMap."""
    image_builder_extra_pod_metadata: ExtraPodMetadata | None = None
    """Labels and annotations added to the image builder pod."""
    image_builder_extra_pod_spec: FreeFormObject | None = None
    """PodSpec fields (nodeSelector, tolerations, affinity, serviceAccountName, ...) set on the
    image builder pod; the containers, volumes and restart policy stay the operator's."""
    image_builder_extra_container_env: (
        Annotated[list[EnvVar], Field(json_schema_extra=LIST_MAP_BY_NAME)] | None
    ) = None
    """Environment variables added to the downloader and builder containers."""
    image_builder_container_resources: FreeFormObject | None = None
    """Resources (``corev1.ResourceRequirements``) of the builder container."""
    image_pull_secrets: list[LocalObjectReference] | None = None
    """Secrets to pull the downloader and builder images with."""
    docker_config_json_secret_name: str | None = None
    """Secret (``.dockerconfigjson``) holding the push credentials of the image registry; the
    operator's DOCKER_REGISTRY_SECRET_NAME if unset."""
    downloader_container_env_from: list[FreeFormObject] | None = None
    """Sources (``corev1.EnvFromSource``) of environment variables for the downloader container."""


class DynamoComponentStatus(ApiModel):
    """Observed state of a DynamoComponent."""

    observed_generation: Annotated[int, Field(ge=0)] | None = None
    """The metadata.generation this status describes."""
    conditions: Conditions | None = None
    """ImageExistsChecked, ImageExists, ImageBuilding and DynamoComponentAvailable."""
    image: str | None = None
    """The image of this artifact, once it exists in the registry (or the spec's image)."""


class DynamoComponent(ApiModel):
    """DynamoComponent builds the container image of a Dynamo artifact."""

    model_config = ConfigDict(title=KIND_COMPONENT)

    api_version: str = API_VERSION
    """API version of this object."""
    kind: Literal["DynamoComponent"] = KIND_COMPONENT
    """Kind of this object."""
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    """Standard object metadata."""
    spec: DynamoComponentSpec
    """Desired state of the component."""
    status: DynamoComponentStatus | None = None
    """Observed state of the component."""
