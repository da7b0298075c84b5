"""The Dynamo kinds `dynamo-operator run` reads and writes, defined once.

Our own kinds are known statically from the CRD table (discovery only confirms they are served);
the optional ones (LeaderWorkerSet, Volcano PodGroup, Istio VirtualService) are used once the
cluster serves their group-version.
"""

from __future__ import annotations

from collections.abc import Set

from dynamo_operator.api import API_VERSION
from dynamo_operator.crd import CUSTOM_RESOURCES, SCALING_RESOURCES
from dynamo_operator.settings import OPTIONAL_API_GROUP_VERSIONS, OptionalApi
from manager.runtime.kinds import ResourceKind

__all__ = [
    "COMPONENT",
    "CUSTOM_KINDS",
    "DYNAMO_COMPONENT",
    "GRAPH",
    "MODEL",
    "OPTIONAL_KINDS",
    "SCALING_ADAPTER",
    "served_optional_apis",
]

CUSTOM_KINDS = {
    resource.kind: ResourceKind(API_VERSION, resource.kind, resource.plural, namespaced=True)
    for resource in (*CUSTOM_RESOURCES, *SCALING_RESOURCES)
}
GRAPH = CUSTOM_KINDS["DynamoGraphDeployment"]
COMPONENT = CUSTOM_KINDS["DynamoComponentDeployment"]
MODEL = CUSTOM_KINDS["DynamoModel"]
DYNAMO_COMPONENT = CUSTOM_KINDS["DynamoComponent"]
SCALING_ADAPTER = CUSTOM_KINDS["DynamoGraphDeploymentScalingAdapter"]
"""Written by the operator (one per service that asks for one), scaled through `/scale`."""

OPTIONAL_KINDS: dict[OptionalApi, ResourceKind] = {
    "lws": ResourceKind(
        OPTIONAL_API_GROUP_VERSIONS["lws"], "LeaderWorkerSet", "leaderworkersets", True
    ),
    "volcano": ResourceKind(OPTIONAL_API_GROUP_VERSIONS["volcano"], "PodGroup", "podgroups", True),
    "istio": ResourceKind(
        OPTIONAL_API_GROUP_VERSIONS["istio"], "VirtualService", "virtualservices", True
    ),
}


def served_optional_apis(group_versions: Set[str]) -> frozenset[OptionalApi]:
    """The optional APIs among the group-versions the cluster serves."""
    return frozenset(
        name for name, version in OPTIONAL_API_GROUP_VERSIONS.items() if version in group_versions
    )
