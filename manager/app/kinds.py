"""The kinds `dynamo-operator run` reads and writes, and what its cache holds of each.

Our own kinds are known statically from the CRD table (discovery only confirms they are served);
the optional ones (LeaderWorkerSet, Volcano PodGroup, Istio VirtualService) are used once the
cluster serves their group-version.
"""

from __future__ import annotations

from typing import Any

from dynamo_operator.api import API_VERSION
from dynamo_operator.constants import MANAGED_BY_OPERATOR, Labels
from dynamo_operator.crd import CUSTOM_RESOURCES
from dynamo_operator.settings import OPTIONAL_API_GROUP_VERSIONS, OptionalApi
from manager.runtime.cache import Cache
from manager.runtime.kinds import (
    DEPLOYMENT,
    HORIZONTAL_POD_AUTOSCALER,
    INGRESS,
    PERSISTENT_VOLUME_CLAIM,
    POD,
    ROLE,
    ROLE_BINDING,
    SECRET,
    SERVICE,
    SERVICE_ACCOUNT,
    ResourceKind,
)

__all__ = [
    "COMPONENT",
    "COMPONENT_CHILDREN",
    "CUSTOM_KINDS",
    "GRAPH",
    "MANAGED_SELECTOR",
    "OPTIONAL_KINDS",
    "SHARED_SELECTOR",
    "register_cache_options",
]

CUSTOM_KINDS = {
    resource.kind: ResourceKind(API_VERSION, resource.kind, resource.plural, namespaced=True)
    for resource in CUSTOM_RESOURCES
}
GRAPH = CUSTOM_KINDS["DynamoGraphDeployment"]
COMPONENT = CUSTOM_KINDS["DynamoComponentDeployment"]

OPTIONAL_KINDS: dict[OptionalApi, ResourceKind] = {
    "lws": ResourceKind(
        OPTIONAL_API_GROUP_VERSIONS["lws"], "LeaderWorkerSet", "leaderworkersets", True
    ),
    "volcano": ResourceKind(OPTIONAL_API_GROUP_VERSIONS["volcano"], "PodGroup", "podgroups", True),
    "istio": ResourceKind(
        OPTIONAL_API_GROUP_VERSIONS["istio"], "VirtualService", "virtualservices", True
    ),
}
COMPONENT_CHILDREN = (DEPLOYMENT, SERVICE, INGRESS, HORIZONTAL_POD_AUTOSCALER)
# Children and pods carry the component's selector label; caching only those keeps the operator
# from holding every Deployment and Pod of the cluster.
MANAGED_SELECTOR = Labels.SELECTOR
SHARED_SELECTOR = f"{Labels.MANAGED_BY}={MANAGED_BY_OPERATOR}"


def without_spec(pod: dict[str, Any]) -> dict[str, Any]:
    """A cached pod keeps its metadata and status: the component status reads why a pod is not
    ready from them, never from the spec, which is most of a pod (containers, env, probes,
    volumes: about 18 MB of peak RSS with the 2,000 pods of bench/converge.py at N = 500)."""
    pod.pop("spec", None)
    return pod


def register_cache_options(cache: Cache) -> None:
    """Cache only what the operator manages: children and pods by their selector label, pull
    secrets by type, shared planner and discovery access by its managed-by label; every PVC (a
    graph may name a claim the user made)."""
    for kind in COMPONENT_CHILDREN:
        cache.register(kind, label_selector=MANAGED_SELECTOR)
    cache.register(POD, label_selector=MANAGED_SELECTOR, transform=without_spec)
    cache.register(SECRET, field_selector="type=kubernetes.io/dockerconfigjson")
    cache.register(SERVICE_ACCOUNT, label_selector=SHARED_SELECTOR)
    cache.register(ROLE, label_selector=SHARED_SELECTOR)
    cache.register(ROLE_BINDING, label_selector=SHARED_SELECTOR)
    cache.register(PERSISTENT_VOLUME_CLAIM)
