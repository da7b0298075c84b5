"""The DynamoComponent reconciler: the image of a built artifact, in the registry or built.

Five steps per pass: read the component from the cache; validate it (invalid is terminal until
the spec changes); find out where its image stands (``spec.image`` is taken as given; an image
the status already confirmed for this generation is not asked for again; else one ``HEAD`` of
its manifest, skipped by the ``nvidia.com/force-build-image: "true"`` annotation); when it is
missing, make sure the one builder Job of the current inputs exists (Jobs of other inputs are
deleted, so a changed spec or builder configuration replaces a running build; a failed Job of
the current inputs is not retried: fixing the spec or the tag makes new inputs); derive the
status, write it once if it changed, and emit an Event only on a transition.

The builder Jobs are the component's (controller owner reference): garbage collection stops and
deletes them with it, so no build outlives its component.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import yaml

from dynamo_operator.api import DynamoComponent
from dynamo_operator.errors import InvalidComponentReferenceError
from dynamo_operator.image_build import (
    CONFIG_MAP_NAME,
    SPEC_HASH_ANNOTATION,
    BasicCredentials,
    BuilderConfig,
    BuilderConfigError,
    ImageBuildError,
    ImageBuildSettings,
    RegistryConfigError,
    build_image_builder_job,
    component_image,
    credentials_for,
    docker_config_secret_name,
    image_builder_labels,
    parse_builder_config,
    parse_image_name,
)
from dynamo_operator.status import (
    DYNAMO_COMPONENT_EVENTS,
    ImageObservation,
    StatusFailure,
    derive_dynamo_component_status,
    derive_transition_event,
    observe_builder_job,
)
from dynamo_operator.validation import validate_cached
from manager.app.reconcilers.dynamo_component.registry import ImageRegistry
from manager.runtime.cache import CacheReader
from manager.runtime.client import AlreadyExists, BadRequest, Client, Invalid, NotFound
from manager.runtime.controller import Request, Result
from manager.runtime.events import EventRecorder
from manager.runtime.kinds import CONFIG_MAP, JOB, POD, SECRET, ResourceKind
from manager.runtime.status_report import StatusReport

__all__ = ["FORCE_BUILD_ANNOTATION", "DynamoComponentReconciler"]

FORCE_BUILD_ANNOTATION = "nvidia.com/force-build-image"
JOB_NAME_LABEL = "batch.kubernetes.io/job-name"


@dataclass(frozen=True, slots=True)
class _Inputs:
    """What a pass needs besides the component: the image and the Job that builds it."""

    image: str
    job: dict[str, Any]
    credentials: BasicCredentials | None


class DynamoComponentReconciler:
    def __init__(
        self,
        *,
        client: Client,
        reader: CacheReader,
        recorder: EventRecorder,
        registry: ImageRegistry,
        settings: ImageBuildSettings,
        kind: ResourceKind,
        now: Callable[[], datetime],
        retry_after: float = 30.0,
    ) -> None:
        self._client = client
        self._reader = reader
        self._registry = registry
        self._settings = settings
        self._kind = kind
        self._now = now
        self._retry_after = retry_after
        self._status = StatusReport(client, recorder)

    async def reconcile(self, request: Request) -> Result | None:
        wire = self._reader.get(self._kind, request.namespace, request.name)
        if wire is None or wire["metadata"].get("deletionTimestamp"):
            return None
        validation = validate_cached(wire)
        if not validation.allowed:
            return await self._report(wire, None, StatusFailure.invalid(validation))
        component = validation.model(DynamoComponent)
        try:
            image = component_image(component, self._settings)
            if component.spec.image:
                return await self._report(wire, ImageObservation(image, image_given=True))
            inputs = await self._inputs(component, image)
        except (
            ImageBuildError,
            InvalidComponentReferenceError,
            BuilderConfigError,
            RegistryConfigError,
        ) as error:
            return await self._report(wire, None, StatusFailure.reconcile_error(str(error)))
        jobs = self._reader.list(JOB, request.namespace, labels=image_builder_labels(request.name))
        current = next((j for j in jobs if _hash(j) == _hash(inputs.job)), None)
        try:
            for stale in (j for j in jobs if j is not current):
                await self._client.delete(JOB, request.namespace, stale["metadata"]["name"])
            observation = await self._observe(wire, inputs, current)
        except (Invalid, BadRequest) as error:  # the API server refuses the Job: say why, wait
            return await self._report(wire, None, StatusFailure.reconcile_error(str(error)))
        return await self._report(wire, observation)

    async def _inputs(self, component: DynamoComponent, image: str) -> _Inputs:
        namespace = str(component.metadata.namespace)
        job = build_image_builder_job(
            component, self._settings, image, await self._builder_config()
        )
        secret_name = docker_config_secret_name(component, self._settings)
        credentials = None
        if secret_name:
            secret = self._reader.get(SECRET, namespace, secret_name)
            if secret is None:
                raise RegistryConfigError(
                    f"the registry Secret '{secret_name}' (type kubernetes.io/dockerconfigjson) "
                    f"is not in namespace '{namespace}'"
                )
            credentials = credentials_for(_docker_config(secret), parse_image_name(image).registry)
        return _Inputs(image, job, credentials)

    async def _builder_config(self) -> BuilderConfig:
        """The ``dynamo-image-builder-config`` ConfigMap (none: the defaults)."""
        try:
            config_map = await self._client.rest.get(
                CONFIG_MAP, self._settings.image_builder_namespace, CONFIG_MAP_NAME
            )
        except NotFound:
            return parse_builder_config({})
        data = config_map.get("data") or {}
        try:
            decoded = {key: yaml.safe_load(value) for key, value in data.items()}
        except yaml.YAMLError as error:
            raise BuilderConfigError(f"ConfigMap {CONFIG_MAP_NAME}: not YAML: {error}") from None
        return parse_builder_config(decoded)

    async def _observe(
        self, wire: Mapping[str, Any], inputs: _Inputs, current: Mapping[str, Any] | None
    ) -> ImageObservation:
        metadata = wire["metadata"]
        job_name = str(inputs.job["metadata"]["name"])
        pods: list[dict[str, Any]] = []
        if current is not None and _failed(current):
            pods, _ = await self._client.rest.list_all(
                POD, metadata["namespace"], label_selector=f"{JOB_NAME_LABEL}={job_name}"
            )
        job = observe_builder_job(current, pods)
        observation = ImageObservation(
            inputs.image,
            job_name=job_name,
            job_state=job.state,
            job_message=job.message,
            log_tail=job.log_tail,
            timed_out=job.timed_out,
        )
        forced = (metadata.get("annotations") or {}).get(FORCE_BUILD_ANNOTATION) == "true"
        if current is not None:  # made because the image was missing (or the build forced)
            exists = False
        elif _confirmed(wire, inputs.image):
            exists = True
        elif forced:
            exists = False
        else:
            check = await self._registry.check(
                parse_image_name(inputs.image),
                secure=self._settings.docker_registry_secure,
                credentials=inputs.credentials,
            )
            if check.exists is None:
                return _replace(observation, registry_error=check.message)
            exists = check.exists
        if exists is False and current is None:
            await self._create_job(inputs.job)
        return _replace(observation, image_exists=exists)

    async def _create_job(self, job: Mapping[str, Any]) -> None:
        with contextlib.suppress(AlreadyExists):  # the previous pass made it; not cached yet
            await self._client.create(job)

    async def _report(
        self,
        wire: Mapping[str, Any],
        observation: ImageObservation | None,
        failure: StatusFailure | None = None,
    ) -> Result | None:
        now = self._now()
        status = derive_dynamo_component_status(wire, observation, now, failure=failure)
        event = derive_transition_event(
            wire.get("status"), status, DYNAMO_COMPONENT_EVENTS, failed=failure is not None
        )
        retry = observation is not None and bool(observation.registry_error)
        requeue_after = self._retry_after if retry else None
        return await self._status.report(wire, status, event, now=now, requeue_after=requeue_after)


def _hash(job: Mapping[str, Any]) -> str | None:
    return (job["metadata"].get("annotations") or {}).get(SPEC_HASH_ANNOTATION)


def _failed(job: Mapping[str, Any]) -> bool:
    conditions = (job.get("status") or {}).get("conditions") or ()
    return any(c.get("type") == "Failed" and c.get("status") == "True" for c in conditions)


def _confirmed(wire: Mapping[str, Any], image: str) -> bool:
    """The status already says ``image`` exists, for this generation: no need to ask again."""
    status = wire.get("status") or {}
    return status.get("image") == image and status.get("observedGeneration") == wire[
        "metadata"
    ].get("generation")


def _docker_config(secret: Mapping[str, Any]) -> str:
    encoded = (secret.get("data") or {}).get(".dockerconfigjson") or ""
    return base64.b64decode(encoded).decode()


def _replace(observation: ImageObservation, **changes: Any) -> ImageObservation:
    return dataclasses.replace(observation, **changes)
