"""The artifact's ``dynamo.yaml``: which services the graph has and how each runs.

``dynamo build`` writes it at the root of the artifact tar (upstream read it in
``internal/dynamo/graph.go``)::

    service: graphs.agg:Frontend          # the graph's entry point ("dynamo tag")
    entry_service: Frontend
    services:
    - name: Frontend
      dependencies: [{service: Processor}]
      config:
        dynamo: {enabled: true, namespace: dynamo, name: Frontend, component_type: planner}
        resources: {cpu: "10", memory: 20Gi, gpu: "1", custom: {...}}
        workers: 2                        # replicas
        total_gpus: 16                    # with resources.gpu: nodes per replica
        autoscaling: {min_replicas: 1, max_replicas: 4}
        http_exposed: true
        api_endpoints: [/v1/chat/completions]
        extraPodSpec: {mainContainer: {...}, ...}

Everything else in the file (BentoML's heritage: labels, models, apis, docker...) is ignored.
The caller decodes the YAML (``yaml.safe_load``); this module checks the shape and names the path
in the file of anything wrong.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from dynamo_operator.image_build.errors import ArtifactManifestError


class _ManifestModel(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)


def _quantity(value: object) -> object:
    # YAML reads `cpu: 10` as an integer; a quantity is a string either way.
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return value


ManifestQuantity = Annotated[str, BeforeValidator(_quantity)]


class ArtifactDynamoConfig(_ManifestModel):
    enabled: bool = False
    namespace: str | None = None
    name: str | None = None
    component_type: str | None = None


class ArtifactResources(_ManifestModel):
    cpu: ManifestQuantity | None = None
    memory: ManifestQuantity | None = None
    gpu: ManifestQuantity | None = None
    custom: dict[str, ManifestQuantity] | None = None


class ArtifactAutoscaling(_ManifestModel):
    min_replicas: Annotated[int, Field(strict=True, ge=0)] = 0
    max_replicas: Annotated[int, Field(strict=True, ge=0)] = 0


class ArtifactServiceConfig(_ManifestModel):
    dynamo: ArtifactDynamoConfig | None = None
    resources: ArtifactResources | None = None
    autoscaling: ArtifactAutoscaling | None = None
    http_exposed: bool = False
    api_endpoints: tuple[str, ...] = ()
    workers: Annotated[int, Field(strict=True, ge=0)] | None = None
    total_gpus: Annotated[int, Field(strict=True, ge=0)] | None = None
    extra_pod_spec: dict[str, Any] | None = Field(default=None, alias="extraPodSpec")


class ArtifactService(_ManifestModel):
    name: Annotated[str, Field(min_length=1)]
    dependencies: tuple[dict[str, str], ...] = ()
    config: ArtifactServiceConfig = Field(default_factory=ArtifactServiceConfig)


class ArtifactManifest(_ManifestModel):
    service: str | None = None
    """The graph's entry point (``graphs.agg:Frontend``); DCDs carry it as ``dynamoTag``."""
    entry_service: str | None = None
    """The service clients talk to."""
    services: Annotated[tuple[ArtifactService, ...], Field(min_length=1)]
    """The services, in the file's order."""

    def service_named(self, name: str) -> ArtifactService | None:
        return next((service for service in self.services if service.name == name), None)


def _path(location: tuple[int | str, ...]) -> str:
    path = ""
    for part in location:
        if isinstance(part, int):
            path += f"[{part}]"
        elif "[" not in part:  # pydantic's function-validator steps are not fields
            path += f".{part}" if path else part
    return path or "<root>"


def parse_artifact_manifest(document: object) -> ArtifactManifest:
    """The manifest in ``document`` (the decoded ``dynamo.yaml``); ArtifactManifestError naming
    each wrong path otherwise (``services[1].config.workers: ...``)."""
    if not isinstance(document, dict):
        raise ArtifactManifestError("dynamo.yaml: must be a mapping with a services list")
    try:
        manifest = ArtifactManifest.model_validate(document)
    except ValidationError as error:
        problems = "; ".join(
            f"{_path(tuple(detail['loc']))}: {detail['msg']}"
            for detail in error.errors(include_url=False)
        )
        raise ArtifactManifestError(f"dynamo.yaml: {problems}") from None
    names = [service.name for service in manifest.services]
    for index, name in enumerate(names):
        if name in names[:index]:
            raise ArtifactManifestError(f"dynamo.yaml: services[{index}].name: duplicate {name!r}")
    for index, service in enumerate(manifest.services):
        for position, dependency in enumerate(service.dependencies):
            if dependency.get("service") not in names:
                raise ArtifactManifestError(
                    f"dynamo.yaml: services[{index}].dependencies[{position}].service: "
                    f"{dependency.get('service')!r} is not a service of the artifact"
                )
    return manifest
