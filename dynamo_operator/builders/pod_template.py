"""The pod template of a component (Deployment) or of one role of a multinode group (LWS).

Base pod spec (grace period 60 s, restartPolicy Always, the component's service account: the
planner's, else with Kubernetes discovery its namespace's discovery account), then
``extraPodSpec`` merged over it (user wins), ``securityContext: {fsGroup: 1000}`` unless the user
gives a security context (kept whole, as upstream does), then what the operator adds on top:
volumes merged by name, shared memory replacing any user volume of that name, the main container
after the user's own containers, and discovered image pull secrets after the user's (sorted,
de-duplicated).
Pods that serve a base model (``modelRef``) carry its hash label and name annotation.
"""

from __future__ import annotations

from collections.abc import Mapping

from dynamo_operator.builders.component import Component
from dynamo_operator.builders.container import build_main_container
from dynamo_operator.builders.context import BuildContext
from dynamo_operator.builders.discovery import component_discovery_backend
from dynamo_operator.builders.labels import pod_annotations, pod_labels
from dynamo_operator.builders.merge import JsonDict, copy_json, deep_merge, merge_named
from dynamo_operator.builders.model_service import serving_pod_metadata
from dynamo_operator.builders.multinode import Role, multinode_pod_volumes
from dynamo_operator.builders.service_account import component_service_account
from dynamo_operator.builders.volumes import (
    build_persistent_volume_mounts,
    shared_memory_size,
    shared_memory_volume,
)
from dynamo_operator.constants import (
    DEFAULT_POD_FS_GROUP,
    MAIN_CONTAINER_NAME,
    SHARED_MEMORY_VOLUME_NAME,
    TERMINATION_GRACE_PERIOD_SECONDS,
)
from dynamo_operator.pull_secrets import discover_image_pull_secrets

_OPERATOR_MERGED_FIELDS = ("containers", "volumes", "imagePullSecrets")


def _base_pod_spec(component: Component, context: BuildContext) -> JsonDict:
    spec: JsonDict = {
        "terminationGracePeriodSeconds": TERMINATION_GRACE_PERIOD_SECONDS,
        "restartPolicy": "Always",
    }
    service_account = component_service_account(
        component.component_type,
        component_discovery_backend(component.annotations, context.settings),
        context.kept_discovery_account,
    )
    if service_account:
        spec["serviceAccountName"] = service_account
    return spec


def _image_pull_secrets(component: Component, context: BuildContext) -> list[JsonDict]:
    secrets = merge_named(component.pod_spec_overrides.get("imagePullSecrets"))
    known = {entry.get("name") for entry in secrets}
    discovered = discover_image_pull_secrets(
        context.pull_secrets, component.namespace, component.image, component.annotations
    )
    secrets.extend({"name": name} for name in discovered if name not in known)
    return secrets


def build_pod_spec(component: Component, context: BuildContext, role: Role = "main") -> JsonDict:
    overrides = component.pod_spec_overrides
    spec = deep_merge(
        _base_pod_spec(component, context),
        {key: value for key, value in overrides.items() if key not in _OPERATOR_MERGED_FIELDS},
    )
    if overrides.get("securityContext") is None:
        # Upstream's rule: any security context of the user's own, even a partial or empty one,
        # is kept whole, so a user can leave fsGroup unset on purpose.
        spec["securityContext"] = {"fsGroup": DEFAULT_POD_FS_GROUP}
    persistent = build_persistent_volume_mounts(component)
    shm_size = shared_memory_size(component)
    user_volumes = overrides.get("volumes") or ()
    volumes = merge_named(
        [v for v in user_volumes if shm_size is None or v.get("name") != SHARED_MEMORY_VOLUME_NAME],
        persistent.volumes,
        multinode_pod_volumes(component, context, role),
    )
    if shm_size is not None:
        volumes.append(shared_memory_volume(shm_size))
    main = build_main_container(
        component, context, persistent, shared_memory=shm_size is not None, role=role
    )
    user_containers = [
        copy_json(container)
        for container in overrides.get("containers") or ()
        if container.get("name") != MAIN_CONTAINER_NAME
    ]
    spec["containers"] = [*user_containers, main]
    if volumes:
        spec["volumes"] = volumes
    pull_secrets = _image_pull_secrets(component, context)
    if pull_secrets:
        spec["imagePullSecrets"] = pull_secrets
    return spec


def build_pod_template(
    component: Component,
    context: BuildContext,
    role: Role = "main",
    *,
    extra_labels: Mapping[str, str] | None = None,
    extra_annotations: Mapping[str, str] | None = None,
) -> JsonDict:
    serving_labels, serving_annotations = serving_pod_metadata(component, role)
    labels = pod_labels(component, {**(extra_labels or {}), **serving_labels})
    annotations = pod_annotations(component, {**(extra_annotations or {}), **serving_annotations})
    return {
        "metadata": {
            "labels": dict(sorted(labels.items())),
            "annotations": dict(sorted(annotations.items())),
        },
        "spec": build_pod_spec(component, context, role),
    }
