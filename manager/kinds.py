"""Resource kinds: what the API server calls a kind, and how to reach its REST endpoints.

A `ResourceKind` is resolved once through API discovery (one GET of the group-version, cached per
`Api` object) rather than through kr8s's discovery, which walks every group-version of the
cluster sequentially on first use.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

import anyio
import orjson

__all__ = [
    "CONFIG_MAP",
    "EVENT",
    "LEASE",
    "NAMESPACE",
    "SECRET",
    "KindNotFoundError",
    "ResourceKind",
    "resolve_kind",
]


class KindNotFoundError(LookupError):
    """Discovery does not list the kind in its group-version (CRD missing or API disabled)."""


@dataclass(frozen=True, slots=True)
class ResourceKind:
    """A resource type as the API server serves it (`apps/v1` `Deployment` at `deployments`)."""

    api_version: str
    kind: str
    plural: str
    namespaced: bool

    @property
    def group(self) -> str:
        """The API group; "" for the core group (`v1`)."""
        group, _, _ = self.api_version.rpartition("/")
        return group

    @property
    def version(self) -> str:
        return self.api_version.rpartition("/")[2]

    @property
    def api_prefix(self) -> str:
        """`/api/v1` for the core group, `/apis/<group>/<version>` otherwise."""
        return f"/apis/{self.api_version}" if self.group else f"/api/{self.api_version}"

    def collection_path(self, namespace: str | None = None) -> str:
        """The URL of the collection; all namespaces when `namespace` is None."""
        if self.namespaced and namespace:
            return f"{self.api_prefix}/namespaces/{namespace}/{self.plural}"
        return f"{self.api_prefix}/{self.plural}"

    def object_path(self, namespace: str | None, name: str, subresource: str | None = None) -> str:
        path = f"{self.collection_path(namespace if self.namespaced else None)}/{name}"
        return f"{path}/{subresource}" if subresource else path

    def __str__(self) -> str:
        return f"{self.kind}.{self.api_version}"


CONFIG_MAP = ResourceKind("v1", "ConfigMap", "configmaps", namespaced=True)
SECRET = ResourceKind("v1", "Secret", "secrets", namespaced=True)
NAMESPACE = ResourceKind("v1", "Namespace", "namespaces", namespaced=False)
EVENT = ResourceKind("v1", "Event", "events", namespaced=True)
LEASE = ResourceKind("coordination.k8s.io/v1", "Lease", "leases", namespaced=True)

_WELL_KNOWN = {(k.api_version, k.kind): k for k in (CONFIG_MAP, SECRET, NAMESPACE, EVENT, LEASE)}

# Discovery documents per Api object and group-version. Keyed weakly so a discarded Api (tests
# create one per event loop) takes its cache with it.
_discovery: weakref.WeakKeyDictionary[Any, dict[str, list[dict[str, Any]]]] = (
    weakref.WeakKeyDictionary()
)
_discovery_lock = anyio.Lock()


async def resolve_kind(api: Any, api_version: str, kind: str) -> ResourceKind:
    """Find `kind` in `api_version` through discovery on the kr8s `api`.

    A miss refreshes the group-version once, because a CRD may have been installed after the
    first lookup; a second miss raises `KindNotFoundError`.
    """
    if known := _WELL_KNOWN.get((api_version, kind)):
        return known
    for refresh in (False, True):
        for resource in await _resources(api, api_version, refresh=refresh):
            if resource.get("kind") == kind and "/" not in resource["name"]:
                return ResourceKind(api_version, kind, resource["name"], resource["namespaced"])
    raise KindNotFoundError(f"kind {kind} not served in {api_version}")


async def _resources(api: Any, api_version: str, *, refresh: bool) -> list[dict[str, Any]]:
    per_api = _discovery.setdefault(api, {})
    if not refresh and api_version in per_api:
        return per_api[api_version]
    async with _discovery_lock:
        per_api[api_version] = await _fetch_group_version(api, api_version)
    return per_api[api_version]


async def _fetch_group_version(api: Any, api_version: str) -> list[dict[str, Any]]:
    base = "/apis" if "/" in api_version else "/api"
    async with api.call_api(
        "GET", version="", base=base, url=api_version, raise_for_status=False
    ) as response:
        if response.status_code == 404:
            return []
        response.raise_for_status()
        document: dict[str, Any] = orjson.loads(response.content)
    resources: list[dict[str, Any]] = document.get("resources", [])
    return resources
