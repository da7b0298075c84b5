"""The Dynamo kinds `dynamo-operator run` reads and writes, defined once.

Our own kinds are known statically from the CRD table (discovery only confirms they are served);
the optional ones (LeaderWorkerSet, Volcano PodGroup, Istio VirtualService) are used once the
cluster serves their group-version.

The reconcilers work on v1alpha1 objects; a kind stored at another version (v1beta1) is listed,
watched, read and applied at that version and converted here, in-process (`WireFormat`): the API
server then stores and watches it without calling the conversion webhook, and so does the
garbage collector, which watches every kind at its preferred version (v1beta1). Otherwise each
event of each watch at the other version is a webhook call, made one at a time by the API server,
and the collector's watch falls behind the children it sees, reading their owners again and again
until it catches up.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from typing import Any

from dynamo_operator.api import API_VERSION, GROUP
from dynamo_operator.conversion import ConversionError, convert
from dynamo_operator.crd import CUSTOM_RESOURCES, SCALING_RESOURCES, CustomResource
from dynamo_operator.settings import OPTIONAL_API_GROUP_VERSIONS, OptionalApi
from manager.runtime.kinds import ResourceKind, WireFormat
from manager.runtime.logging import get_logger

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

log = get_logger(__name__)


def _to_wire(api_version: str) -> WireFormat:
    def encode(obj: Mapping[str, Any]) -> dict[str, Any]:
        return convert(obj, api_version)

    return WireFormat(api_version, encode, _from_wire)


def _from_wire(obj: dict[str, Any]) -> dict[str, Any]:
    """`obj` at v1alpha1, without the wire version's managedFields (which name its field paths,
    not v1alpha1's); as it came when it cannot be converted, so the reconciler still sees it and
    reports why (validation converts it again and names the field)."""
    metadata = obj.get("metadata")
    if isinstance(metadata, dict):
        metadata.pop("managedFields", None)
    try:
        return convert(obj, API_VERSION)
    except ConversionError as error:
        log.warning(
            "cannot convert to v1alpha1; kept as it is",
            kind=obj.get("kind"),
            namespace=metadata.get("namespace") if isinstance(metadata, dict) else None,
            name=metadata.get("name") if isinstance(metadata, dict) else None,
            error=str(error),
        )
        return obj


def _custom_kind(resource: CustomResource) -> ResourceKind:
    stored = resource.storage_version.name
    wire = None if f"{GROUP}/{stored}" == API_VERSION else _to_wire(f"{GROUP}/{stored}")
    return ResourceKind(API_VERSION, resource.kind, resource.plural, namespaced=True, wire=wire)


CUSTOM_KINDS = {
    resource.kind: _custom_kind(resource) for resource in (*CUSTOM_RESOURCES, *SCALING_RESOURCES)
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
