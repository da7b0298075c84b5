"""DCD -> every child object: the workload, Service, the base model's headless Service, Ingress
or VirtualService, autoscaler.

A multinode component needs the LeaderWorkerSet API. Without it the outcome says so
(``MultinodeUnsupported``) instead of silently building a Deployment whose pods would not know
each other; the reconciler turns it into a condition, ``render`` into a warning.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from dynamo_operator.api import DynamoComponentDeployment
from dynamo_operator.backend_inference import launched_backends
from dynamo_operator.builders.autoscaler import build_horizontal_pod_autoscaler
from dynamo_operator.builders.component import Component
from dynamo_operator.builders.context import BuildContext
from dynamo_operator.builders.deployment import build_deployment
from dynamo_operator.builders.errors import InvalidComponentError
from dynamo_operator.builders.ingress import build_ingress
from dynamo_operator.builders.leader_worker_set import build_leader_worker_set, build_pod_group
from dynamo_operator.builders.merge import JsonDict
from dynamo_operator.builders.model_service import build_model_service
from dynamo_operator.builders.service import build_service
from dynamo_operator.builders.virtual_service import build_virtual_service
from dynamo_operator.status.reasons import Reasons


@dataclass(frozen=True, slots=True)
class MultinodeUnsupported:
    """The component is multinode but the cluster serves no LeaderWorkerSet API."""

    reason: str
    message: str


@dataclass(frozen=True, slots=True)
class ComponentChildren:
    workload: list[JsonDict] = field(default_factory=list)
    """The Deployment, or per replica a LeaderWorkerSet (and Volcano PodGroup)."""
    service: JsonDict | None = None
    model_service: JsonDict | None = None
    """The headless Service of the base model the component serves (``modelRef``), shared with
    the other components serving it (``model_service.py``)."""
    ingress: JsonDict | None = None
    virtual_service: JsonDict | None = None
    autoscaler: JsonDict | None = None
    unsupported: MultinodeUnsupported | None = None
    """Set when the workload could not be built; the reconciler reports it as a condition."""
    warnings: tuple[str, ...] = ()
    """What a user should know about the component (no image, no Istio, no LWS API)."""
    needs_unserved_api: bool = False
    """A child needs an optional API the settings say the cluster does not serve (a multinode
    workload without LeaderWorkerSet, a VirtualService without Istio): worth looking again."""

    def objects(self) -> list[JsonDict]:
        """Every child in a stable order: workload first, then what routes to and scales it."""
        return [*self.workload, *self.routing()]

    def routing(self) -> list[JsonDict]:
        """The children that route to and scale the workload (every child but the workload)."""
        optional = (
            self.service,
            self.model_service,
            self.ingress,
            self.virtual_service,
            self.autoscaler,
        )
        return [obj for obj in optional if obj is not None]


def build_workload(
    component: Component, context: BuildContext
) -> list[JsonDict] | MultinodeUnsupported:
    if not component.is_multinode:
        return [build_deployment(component, context)]
    apis = context.settings.available_apis
    if "lws" not in apis:
        return MultinodeUnsupported(
            reason=Reasons.LEADER_WORKER_SET_UNAVAILABLE,
            message=(
                f"multinode component {component.name} needs the LeaderWorkerSet API "
                "(leaderworkerset.x-k8s.io/v1), which this cluster does not serve"
            ),
        )
    gang_scheduled = "volcano" in apis
    objects: list[JsonDict] = []
    for instance in range(component.replicas):
        if gang_scheduled:
            objects.append(build_pod_group(component, instance))
        objects.append(
            build_leader_worker_set(component, context, instance, gang_scheduled=gang_scheduled)
        )
    return objects


def _check_launch(component: Component) -> None:
    """A command launching several backends is no component (upstream refuses it too)."""
    launched = launched_backends(component.main_container)
    if len(launched) > 1:
        raise InvalidComponentError(
            "spec.extraPodSpec.mainContainer",
            f"launches several backends: {', '.join(sorted(launched))}",
        )


def _build_children(component: Component, context: BuildContext) -> ComponentChildren:
    _check_launch(component)
    warnings: list[str] = []
    if not component.image:
        warnings.append(
            f"{component.namespace}/{component.name}: no extraPodSpec.mainContainer.image; "
            "the API server will reject its pods"
        )
    workload = build_workload(component, context)
    virtual_service = build_virtual_service(component, context)
    istio_missing = virtual_service is not None and "istio" not in context.settings.available_apis
    if istio_missing:
        warnings.append(
            f"{component.namespace}/{component.name}: ingress asks for an Istio VirtualService "
            "but the cluster serves no Istio API; the component is not exposed"
        )
        virtual_service = None
    unsupported = workload if isinstance(workload, MultinodeUnsupported) else None
    if unsupported is not None:
        warnings.append(f"{component.namespace}/{component.name}: {unsupported.message}")
    return ComponentChildren(
        workload=[] if isinstance(workload, MultinodeUnsupported) else workload,
        service=build_service(component, context),
        model_service=build_model_service(component, context),
        ingress=build_ingress(component, context),
        virtual_service=virtual_service,
        autoscaler=build_horizontal_pod_autoscaler(component, context),
        unsupported=unsupported,
        warnings=tuple(warnings),
        needs_unserved_api=istio_missing or unsupported is not None,
    )


def build_component_children(
    dcd: DynamoComponentDeployment | Mapping[str, Any], context: BuildContext
) -> ComponentChildren:
    """Every object a component deployment owns, and what could not be built and why. `dcd` is
    a validated model, or a DCD `build_component_deployments` built (already in wire form)."""
    component = (
        Component.from_model(dcd, context.default_namespace)
        if isinstance(dcd, DynamoComponentDeployment)
        else Component.from_wire(dcd, context.default_namespace)
    )
    return _build_children(component, context)
