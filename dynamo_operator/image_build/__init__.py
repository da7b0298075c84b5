"""Pure rules of the DynamoComponent workflow (seed 000, upstream v0.1-0.3): settings, names,
the image reference, the builder Job, the artifact's manifest and the graph it expands into.

The controller does the I/O (registry check, API-store download, ConfigMap read, Jobs) and calls
these; nothing here reads the environment, the clock or the network.
"""

from dynamo_operator.image_build.builder_config import (
    CONFIG_MAP_NAME,
    BuilderConfig,
    parse_builder_config,
)
from dynamo_operator.image_build.component_image import awaited_dynamo_component, on_built_image
from dynamo_operator.image_build.errors import (
    ArtifactExpansionError,
    ArtifactManifestError,
    BuilderConfigError,
    ImageBuildError,
    ImageBuildSettingsError,
)
from dynamo_operator.image_build.graph_component import build_graph_dynamo_component
from dynamo_operator.image_build.graph_expansion import (
    component_deployments_from_artifact,
    expand_graph_with_artifact,
)
from dynamo_operator.image_build.image_reference import (
    STORAGE_NAMESPACE_ANNOTATION,
    component_image,
    image_reference,
    repository_uri,
)
from dynamo_operator.image_build.job import (
    IMAGE_BUILDER_LABEL,
    SPEC_HASH_ANNOTATION,
    artifact_download_url,
    build_image_builder_job,
    docker_config_secret_name,
    image_builder_labels,
)
from dynamo_operator.image_build.manifest import (
    ArtifactManifest,
    ArtifactService,
    parse_artifact_manifest,
)
from dynamo_operator.image_build.registry_access import (
    MANIFEST_MEDIA_TYPES,
    BasicCredentials,
    Challenge,
    ImageName,
    RegistryConfigError,
    credentials_for,
    manifest_url,
    parse_challenge,
    parse_image_name,
    token_request,
)
from dynamo_operator.image_build.service_pvcs import expand_service_pvcs
from dynamo_operator.image_build.settings import (
    BuildEngine,
    Env,
    ImageBuildSettings,
    settings_from_environment,
)

__all__ = [
    "CONFIG_MAP_NAME",
    "IMAGE_BUILDER_LABEL",
    "MANIFEST_MEDIA_TYPES",
    "SPEC_HASH_ANNOTATION",
    "STORAGE_NAMESPACE_ANNOTATION",
    "ArtifactExpansionError",
    "ArtifactManifest",
    "ArtifactManifestError",
    "ArtifactService",
    "BasicCredentials",
    "BuildEngine",
    "BuilderConfig",
    "BuilderConfigError",
    "Challenge",
    "Env",
    "ImageBuildError",
    "ImageBuildSettings",
    "ImageBuildSettingsError",
    "ImageName",
    "RegistryConfigError",
    "artifact_download_url",
    "awaited_dynamo_component",
    "build_graph_dynamo_component",
    "build_image_builder_job",
    "component_deployments_from_artifact",
    "component_image",
    "credentials_for",
    "docker_config_secret_name",
    "expand_graph_with_artifact",
    "expand_service_pvcs",
    "image_builder_labels",
    "image_reference",
    "manifest_url",
    "on_built_image",
    "parse_artifact_manifest",
    "parse_builder_config",
    "parse_challenge",
    "parse_image_name",
    "repository_uri",
    "settings_from_environment",
    "token_request",
]
