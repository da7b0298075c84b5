"""What wakes the component controller besides its own DCDs and children (pods, pull Secrets,
the discovery account), and the cache index of components by the base model they serve."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from dynamo_operator.builders import (
    model_service_key,
    served_base_model,
    uses_kubernetes_discovery,
)
from dynamo_operator.constants import DISCOVERY_ACCOUNT_NAME, DISCOVERY_ACCOUNT_SUFFIX, Labels
from dynamo_operator.settings import OperatorSettings
from manager.runtime.cache import CacheReader
from manager.runtime.controller import Request
from manager.runtime.kinds import SERVICE_ACCOUNT, ResourceKind

__all__ = [
    "SERVED_MODEL_INDEX",
    "discovery_access_requests",
    "pod_requests",
    "secret_requests",
    "served_model_index",
]


SERVED_MODEL_INDEX = "served-base-model"
"""The cache index of components by the base model they serve (`served_model_index`)."""


def served_model_index(dcd: Mapping[str, Any]) -> list[str]:
    """A component's entry in `SERVED_MODEL_INDEX`: its namespace and base model, if it serves
    one."""
    base_model = served_base_model(dcd)
    namespace = str((dcd.get("metadata") or {}).get("namespace") or "")
    return [model_service_key(namespace, base_model)] if base_model else []


def discovery_access_requests(
    component_kind: ResourceKind, settings: Callable[[], OperatorSettings]
) -> Callable[[Mapping[str, Any], CacheReader], Iterable[Request]]:
    """A change to a discovery account, Role or RoleBinding (one deleted, say): one component
    that runs as the account makes it whole again (for the namespace's account, the first
    component there with Kubernetes discovery; for an account of one graph, one of its
    owner's)."""

    def requests(obj: Mapping[str, Any], reader: CacheReader) -> Iterable[Request]:
        metadata = obj.get("metadata") or {}
        namespace = metadata.get("namespace") or ""
        account: Mapping[str, Any] | None = obj if obj.get("kind") == "ServiceAccount" else None
        if account is None:
            for owner in metadata.get("ownerReferences") or ():
                if owner.get("kind") == "ServiceAccount":
                    name = str(owner.get("name"))
                    account = reader.get(SERVICE_ACCOUNT, namespace, name) or {}
        account_metadata = (account or {}).get("metadata") or {}
        name = str(account_metadata.get("name"))
        if name == DISCOVERY_ACCOUNT_NAME:
            for dcd in reader.list(component_kind, namespace):
                if uses_kubernetes_discovery(dcd, settings()):
                    return (Request(namespace, dcd["metadata"]["name"]),)
            return ()
        if not name.endswith(DISCOVERY_ACCOUNT_SUFFIX):
            return ()
        for owner in account_metadata.get("ownerReferences") or ():
            if owner.get("kind") == component_kind.kind:
                return (Request(namespace, str(owner["name"])),)
            for dcd in reader.list(component_kind, namespace, owner_uid=owner.get("uid")):
                return (Request(namespace, dcd["metadata"]["name"]),)
        return ()

    return requests


def pod_requests(pod: Mapping[str, Any], reader: CacheReader) -> Iterable[Request]:
    """A pod's component: its `nvidia.com/selector` label names the DCD."""
    metadata = pod.get("metadata") or {}
    component = (metadata.get("labels") or {}).get(Labels.SELECTOR)
    return (Request(metadata.get("namespace") or "", component),) if component else ()


def secret_requests(
    component_kind: ResourceKind,
) -> Callable[[Mapping[str, Any], CacheReader], Iterable[Request]]:
    """A pull Secret's namespace's DCDs: their pod templates may gain or lose it."""

    def requests(secret: Mapping[str, Any], reader: CacheReader) -> Iterable[Request]:
        namespace = (secret.get("metadata") or {}).get("namespace") or ""
        return [
            Request(namespace, dcd["metadata"]["name"])
            for dcd in reader.list(component_kind, namespace)
        ]

    return requests
