"""How `dynamo-operator run` runs the DynamoComponentDeployment controller: what it caches and
watches, and how it takes up an optional API (LeaderWorkerSet, Volcano, Istio) the cluster starts
serving while the operator runs."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from dynamo_operator.constants import MANAGED_BY_OPERATOR, Labels
from manager.app.deps import Deps
from manager.app.kinds import COMPONENT, DYNAMO_COMPONENT, OPTIONAL_KINDS, served_optional_apis
from manager.app.predicates import (
    not_made_by_its_controller,
    pod_failure_changed,
    spec_or_metadata_changed,
    workload_turned_ready,
)
from manager.app.reconcilers.component_deployment.reconciler import (
    ComponentDeploymentReconciler,
    ComponentKinds,
)
from manager.app.reconcilers.component_deployment.watches import (
    SERVED_MODEL_INDEX,
    discovery_access_requests,
    pod_requests,
    secret_requests,
    served_model_index,
)
from manager.runtime.builder import ControllerBuilder
from manager.runtime.cache import CacheReader
from manager.runtime.controller import Controller, Request
from manager.runtime.handler import EnqueueHandler, enqueue_for_owner
from manager.runtime.kinds import (
    DEPLOYMENT,
    HORIZONTAL_POD_AUTOSCALER,
    INGRESS,
    POD,
    ROLE,
    ROLE_BINDING,
    SECRET,
    SERVICE,
    SERVICE_ACCOUNT,
)
from manager.runtime.manager import Manager
from manager.runtime.workqueue import DEFAULT_PRIORITY, LOW_PRIORITY

__all__ = ["WORKLOAD_READY_PRIORITY", "components_awaiting", "pod_for_cache", "setup"]

WORKLOAD_READY_PRIORITY = (DEFAULT_PRIORITY + LOW_PRIORITY) // 2
"""A component whose workload turned ready: its Service and status (what its graph waits for)
go before the Services of components whose pods are still on their way, but after the work
that makes pods, and it makes none itself: the extra workers may take it."""

CHILDREN = (DEPLOYMENT, SERVICE, INGRESS, HORIZONTAL_POD_AUTOSCALER)
# Children and pods carry the component's selector label; caching only those keeps the operator
# from holding every Deployment and Pod of the cluster.
MANAGED_SELECTOR = Labels.SELECTOR
MANAGED_BY_SELECTOR = f"{Labels.MANAGED_BY}={MANAGED_BY_OPERATOR}"


def setup(manager: Manager, deps: Deps) -> Controller:
    """Add the component controller to `manager`, and have it watch each optional API's kind
    from the moment the cluster serves it."""
    _register_cache_options(deps)
    reconciler = ComponentDeploymentReconciler(
        client=deps.client,
        reader=deps.cache.reader,
        recorder=deps.recorder,
        kinds=ComponentKinds(
            component=COMPONENT,
            children=(*CHILDREN, *OPTIONAL_KINDS.values()),
            dynamo_component=DYNAMO_COMPONENT,
        ),
        settings=deps.settings,
        now=deps.now,
        pod_work_waiting=deps.pod_work_waiting,
        api_missing=deps.served_apis.recheck_soon,
        collector_holds=deps.collector_holds(COMPONENT),
    )
    discovery_access = discovery_access_requests(COMPONENT, deps.settings)
    controller = (
        ControllerBuilder(manager)
        .named("dynamocomponentdeployment")
        .for_(COMPONENT, spec_or_metadata_changed())
        .owns(DEPLOYMENT, not_made_by_its_controller())
        .watches(
            DEPLOYMENT,
            enqueue_for_owner(COMPONENT),
            workload_turned_ready(),
            priority=WORKLOAD_READY_PRIORITY,
        )
        # Every owner, not only the controller: a base model's Service is shared by the
        # components serving it, none of them its controller.
        .watches(
            SERVICE,
            enqueue_for_owner(COMPONENT, only_controller=False),
            not_made_by_its_controller(),
            priority=LOW_PRIORITY,
        )
        .owns(INGRESS, not_made_by_its_controller())
        .owns(HORIZONTAL_POD_AUTOSCALER, not_made_by_its_controller())
        # A report, and only of a failure: the pods exist already.
        .watches(POD, pod_requests, pod_failure_changed(), priority=LOW_PRIORITY)
        .watches(SECRET, secret_requests(COMPONENT))
        .watches(SERVICE_ACCOUNT, discovery_access)
        .watches(ROLE, discovery_access)
        .watches(ROLE_BINDING, discovery_access)
        .watches(DYNAMO_COMPONENT, components_awaiting)
        # Services and statuses wait on the API server, not on the operator: while the cluster
        # makes pods and no pod-making work waits, more of them in flight.
        .with_options(
            max_concurrent_reconciles=deps.max_concurrent_reconciles,
            low_priority_workers=deps.max_concurrent_low_priority_reconciles,
            hold_low_priority=deps.pod_work_waiting,
        )
        .complete(deps.reconciler_for(COMPONENT, reconciler))
    )
    deps.served_apis.add_listener(lambda present: _take_up(controller, deps, present))
    if deps.collector_view is not None:
        deps.collector_view.follow(COMPONENT, controller.queue.add)
    return controller


def components_awaiting(built: dict[str, Any], reader: CacheReader) -> Iterable[Request]:
    """The DCDs of the DynamoComponent's namespace that name its artifact: its image becoming
    available (or its build failing) changes them."""
    metadata = built.get("metadata") or {}
    namespace = metadata.get("namespace") or ""
    tag = (built.get("spec") or {}).get("dynamoComponent")
    return [
        Request(namespace, dcd["metadata"]["name"])
        for dcd in reader.list(COMPONENT, namespace)
        if tag and (dcd.get("spec") or {}).get("dynamoComponent") == tag
    ]


POD_STATUS_READ = ("phase", "conditions", "initContainerStatuses", "containerStatuses")


def pod_for_cache(pod: dict[str, Any]) -> dict[str, Any]:
    """A cached pod keeps its metadata and the part of its status the component status reads
    why a pod is not ready from (`dynamo_operator.status.pods`), never its spec, which is most of
    a pod (containers, env, probes, volumes: about 18 MB of peak RSS with the 2,000 pods of
    bench/converge.py at N = 500), nor its addresses, QoS class and start time, nor who manages
    it."""
    pod.pop("spec", None)
    pod["metadata"].pop("managedFields", None)  # never written by the operator
    status = pod.get("status")
    if status:
        pod["status"] = {key: status[key] for key in POD_STATUS_READ if key in status}
    return pod


def _register_cache_options(deps: Deps) -> None:
    """Cache only what the operator manages: children and pods by their selector label, pull
    secrets by type, discovery accounts and their Roles and RoleBindings (three per namespace) by
    their managed-by label. All but components and Secrets are kept packed (JSON text, decoded
    when read): each is read about once per reconcile of its component, and as dicts children
    and pods are the biggest objects in the cache (a Deployment ~12 KB, ~4 KB as text; a
    trimmed pod 6.3 KB). Components are indexed by the base model they serve: who shares its
    model's Service."""
    deps.cache.register(COMPONENT, indexers={SERVED_MODEL_INDEX: served_model_index})
    for kind in CHILDREN:
        deps.cache.register(kind, label_selector=MANAGED_SELECTOR, packed=True)
    deps.cache.register(POD, label_selector=MANAGED_SELECTOR, transform=pod_for_cache, packed=True)
    deps.cache.register(SECRET, field_selector="type=kubernetes.io/dockerconfigjson")
    for kind in (SERVICE_ACCOUNT, ROLE, ROLE_BINDING):
        deps.cache.register(kind, label_selector=MANAGED_BY_SELECTOR, packed=True)


def _take_up(controller: Controller, deps: Deps, present: frozenset[str]) -> None:
    """Cache and watch the kinds of the optional APIs served now, and reconcile every component
    again so multinode ones get their workloads."""
    registry, cache = deps.client.kinds, deps.cache
    for name in served_optional_apis(present):
        kind = OPTIONAL_KINDS[name]
        if kind in registry:
            continue
        registry.add(kind)
        informer = cache.register(kind, label_selector=MANAGED_SELECTOR)
        controller.watch(
            informer, EnqueueHandler(controller.queue, enqueue_for_owner(COMPONENT), cache.reader)
        )
    if cache.reader.has_synced(COMPONENT):
        for dcd in cache.reader.list(COMPONENT):
            metadata = dcd["metadata"]
            controller.queue.add(Request(metadata["namespace"], metadata["name"]))
