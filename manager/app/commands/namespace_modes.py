"""Deployment modes: how a namespace-restricted operator and a cluster-wide one share a cluster.

- Namespace-restricted (`--restrictedNamespace NS`): every informer is scoped to NS, no leader
  election, and a marker Lease `dynamo-operator-namespace-scope` in NS says the namespace is
  taken (holder `namespace-restricted-operator-<version>`), renewed while the process runs and
  deleted when it stops.
- Cluster-wide: watches those markers (and only them) in every namespace; in a namespace with a
  live marker it reconciles nothing and its webhooks admit without validating (the namespace's
  own operator validates). When the marker goes (deleted, or expired by time) it takes the
  namespace back at once and reconciles everything there again. Both transitions are logged and
  announced with one Event on each graph of the namespace.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from dynamo_operator.validation import ValidationResult, validate_create, validate_update
from manager.runtime.cache import CacheReader
from manager.runtime.controller import Controller, Request
from manager.runtime.events import EventRecorder
from manager.runtime.identity import Identity
from manager.runtime.kinds import ResourceKind
from manager.runtime.leaderelection.marker import LeaseMarker
from manager.runtime.namespace_claims import NamespaceClaims
from manager.runtime.process_owner import ProcessOwner

__all__ = [
    "MARKER_LEASE_NAME",
    "ClaimAwareValidator",
    "HandOver",
    "namespace_marker",
]

MARKER_LEASE_NAME = "dynamo-operator-namespace-scope"


def namespace_marker(
    api: Any,
    identity: Identity,
    *,
    namespace: str,
    operator_version: str,
    duration: float,
    renew_interval: float,
    owner: ProcessOwner | None = None,
) -> LeaseMarker:
    return LeaseMarker(
        api,
        identity,
        name=MARKER_LEASE_NAME,
        namespace=namespace,
        holder_identity=f"namespace-restricted-operator-{operator_version}",
        duration=duration,
        renew_interval=renew_interval,
        owner=owner,
    )


@dataclass(frozen=True)
class ClaimAwareValidator:
    """The pure validators, skipped for objects in a namespace another operator claimed."""

    claims: NamespaceClaims

    def validate_create(self, obj: Mapping[str, Any]) -> ValidationResult:
        if self.claims.is_claimed(_namespace(obj)):
            return ValidationResult()
        return validate_create(obj)

    def validate_update(self, new: Mapping[str, Any], old: Mapping[str, Any]) -> ValidationResult:
        if self.claims.is_claimed(_namespace(new)):
            return ValidationResult()
        return validate_update(new, old)


@dataclass(frozen=True)
class HandOver:
    """Listener of `NamespaceClaims`: announce each transition and, when a namespace comes
    back, reconcile everything in it."""

    reader: CacheReader
    recorder: EventRecorder
    graph_kind: ResourceKind
    controllers: Iterable[tuple[Controller, ResourceKind]]

    def __call__(self, namespace: str, claimed: bool) -> None:
        reason, message = (
            ("NamespaceHandedOver", "a namespace-restricted operator manages this namespace now")
            if claimed
            else ("NamespaceTakenBack", "the cluster-wide operator manages this namespace again")
        )
        if self.reader.has_synced(self.graph_kind):
            for graph in self.reader.list(self.graph_kind, namespace):
                self.recorder.event(graph, "Normal", reason, message)
        if claimed:
            return
        for controller, kind in self.controllers:
            if self.reader.has_synced(kind):
                for obj in self.reader.list(kind, namespace):
                    controller.queue.add(Request(namespace, obj["metadata"]["name"]))


def _namespace(obj: Mapping[str, Any]) -> str:
    metadata = obj.get("metadata")
    return str(metadata.get("namespace") or "") if isinstance(metadata, Mapping) else ""
