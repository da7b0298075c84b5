"""Metadata of every object the operator creates, and how it names the object that owns it.

A child lives in its owner's namespace and carries exactly one ownerReference, to its owner, with
``controller: true`` and ``blockOwnerDeletion: true``: Kubernetes garbage-collects it with the owner
and the operator's watches map its events back to the owner. Labels and annotations are sorted so
the output is stable. The owners are graph deployments (for DCDs and PVCs) and component
deployments (for everything else); both are described by the ``Owner`` protocol.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from dynamo_operator.api import reference_api_version
from dynamo_operator.builders.merge import JsonDict


class Owner(Protocol):
    """What a child needs to know about the object that owns it."""

    @property
    def namespace(self) -> str: ...

    def owner_reference(self) -> JsonDict: ...


def controller_reference(kind: str, name: str, uid: str | None) -> JsonDict:
    """A controller reference to one of our custom resources.

    ``uid`` is omitted when unknown: ``render`` never talks to a cluster, and the API server rejects
    a reference with a wrong UID but accepts one without.
    """
    reference: JsonDict = {"apiVersion": reference_api_version(kind), "kind": kind, "name": name}
    if uid:
        reference["uid"] = uid
    reference["controller"] = True
    reference["blockOwnerDeletion"] = True
    return reference


def object_metadata(
    owner: Owner,
    name: str,
    labels: Mapping[str, str],
    annotations: Mapping[str, str],
    *,
    owned: bool = True,
) -> JsonDict:
    """Metadata of a child of ``owner``: in its namespace, sorted maps, and controlled by it
    unless ``owned`` is False (an object that must outlive its owner, such as a created PVC)."""
    metadata: JsonDict = {
        "name": name,
        "namespace": owner.namespace,
        "labels": dict(sorted(labels.items())),
        "annotations": dict(sorted(annotations.items())),
    }
    if owned:
        metadata["ownerReferences"] = [owner.owner_reference()]
    return metadata
