"""Fakes for the scaling adapter tests: a cache reader over a few objects, a client that records
its writes (and can be told to refuse one), an Event recorder; and the objects themselves."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from manager.app.kinds import GRAPH, SCALING_ADAPTER
from manager.runtime.client import AlreadyExists, ApiError, NotFound
from manager.runtime.kinds import ResourceKind

GRAPH_UID = "graph-uid"


def graph(
    *, replicas: int | None = 1, enabled: bool = True, uid: str = GRAPH_UID
) -> dict[str, Any]:
    worker: dict[str, Any] = {"componentType": "worker"}
    if replicas is not None:
        worker["replicas"] = replicas
    if enabled:
        worker["scalingAdapter"] = {"enabled": True}
    return {
        "apiVersion": GRAPH.api_version,
        "kind": GRAPH.kind,
        "metadata": {"name": "llm", "namespace": "ns", "uid": uid, "generation": 1},
        "spec": {"services": {"Frontend": {"componentType": "frontend"}, "VllmWorker": worker}},
    }


def adapter(
    replicas: int = 3,
    *,
    name: str = "llm-vllmworker",
    service: str = "VllmWorker",
    owner_uid: str = GRAPH_UID,
    controller: bool = True,
    status: dict[str, Any] | None = None,
) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": SCALING_ADAPTER.api_version,
        "kind": SCALING_ADAPTER.kind,
        "metadata": {
            "name": name,
            "namespace": "ns",
            "uid": f"uid-{name}",
            "generation": 2,
            "ownerReferences": [
                {
                    "apiVersion": GRAPH.api_version,
                    "kind": GRAPH.kind,
                    "name": "llm",
                    "uid": owner_uid,
                    "controller": controller,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": {"replicas": replicas, "dgdRef": {"name": "llm", "serviceName": service}},
    }
    if status is not None:
        obj["status"] = status
    return obj


class FakeReader:
    def __init__(self, *objects: dict[str, Any]) -> None:
        self.objects = {self.key(obj): obj for obj in objects}

    @staticmethod
    def key(obj: Mapping[str, Any]) -> tuple[str, str, str]:
        metadata = obj["metadata"]
        return (obj["kind"], metadata.get("namespace") or "", metadata["name"])

    def has_synced(self, kind: ResourceKind) -> bool:
        return True

    def get(self, kind: ResourceKind, namespace: str | None, name: str) -> dict[str, Any] | None:
        return self.objects.get((kind.kind, namespace or "", name))

    def list(
        self, kind: ResourceKind, namespace: str | None = None, *, owner_uid: str | None = None
    ) -> list[dict[str, Any]]:
        return [
            obj
            for (obj_kind, obj_namespace, _), obj in self.objects.items()
            if obj_kind == kind.kind
            and namespace in (None, obj_namespace)
            and (
                owner_uid is None
                or any(
                    ref.get("uid") == owner_uid
                    for ref in obj["metadata"].get("ownerReferences") or ()
                )
            )
        ]


class FakeClient:
    """Records writes; the reader is not updated, as the cache right after a write."""

    def __init__(self, reader: FakeReader) -> None:
        self.reader = reader
        self.patches: list[tuple[str, str, dict[str, Any]]] = []
        self.statuses: list[dict[str, Any]] = []
        self.created: list[dict[str, Any]] = []
        self.deleted: list[str] = []
        self.refusal: ApiError | None = None
        """Raised by the next merge patch."""

    async def merge_patch(
        self,
        kind: ResourceKind,
        namespace: str | None,
        name: str,
        patch: Mapping[str, Any],
        *,
        subresource: str | None = None,
    ) -> dict[str, Any]:
        assert subresource is None
        if self.refusal is not None:
            raise self.refusal
        if self.reader.get(kind, namespace, name) is None:
            raise NotFound(404, "NotFound", f"{name} not found", {})
        self.patches.append((kind.kind, name, copy.deepcopy(dict(patch))))
        return {}

    async def apply_status_if_changed(
        self, desired_status: Mapping[str, Any], live: Mapping[str, Any]
    ) -> bool:
        if desired_status == live.get("status"):
            return False
        self.statuses.append(copy.deepcopy(dict(desired_status)))
        return True

    async def create(self, obj: Mapping[str, Any]) -> dict[str, Any]:
        if self.reader.get(SCALING_ADAPTER, obj["metadata"]["namespace"], obj["metadata"]["name"]):
            raise AlreadyExists(409, "AlreadyExists", "exists", {})
        self.created.append(copy.deepcopy(dict(obj)))
        return dict(obj)

    async def delete(self, kind: ResourceKind, namespace: str | None, name: str) -> bool:
        self.deleted.append(name)
        return True
