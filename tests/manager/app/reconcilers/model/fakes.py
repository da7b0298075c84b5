"""Fakes for the DynamoModel reconciler: a cache reader over a few objects, a client that
records its writes, an Event recorder, and workers whose answers a test decides."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import anyio

from dynamo_operator.model_endpoints import WorkerEndpoint
from manager.app.reconcilers.model import CallOutcome
from manager.runtime.client import ApiError
from manager.runtime.identity import Identity
from manager.runtime.kinds import ENDPOINT_SLICE, ResourceKind

MODEL = ResourceKind("nvidia.com/v1alpha1", "DynamoModel", "dynamomodels", True)
IDENTITY = Identity.for_product("dynamo-operator", domain="nvidia.com", version="0")
QWEN_HASH = "fb68f5a6"


def model(
    *, model_type: str = "lora", uri: str = "s3://b/math", deleting: bool = False, **metadata: Any
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "modelName": "math",
        "baseModelName": "Qwen/Qwen3-0.6B",
        "modelType": model_type,
    }
    if uri:
        spec["source"] = {"uri": uri}
    meta: dict[str, Any] = {
        "name": "m",
        "namespace": "ns",
        "uid": "uid-1",
        "generation": 1,
        "resourceVersion": "10",
        **metadata,
    }
    if deleting:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {"apiVersion": MODEL.api_version, "kind": MODEL.kind, "metadata": meta, "spec": spec}


def endpoint_slice(*ips: str, model_hash: str = QWEN_HASH) -> dict[str, Any]:
    return {
        "metadata": {
            "name": f"s-{model_hash}",
            "namespace": "ns",
            "labels": {
                "nvidia.com/dynamo-base-model-hash": model_hash,
                "kubernetes.io/service-name": f"dynamo-model-{model_hash}",
            },
        },
        "addressType": "IPv4",
        "ports": [{"name": "system", "port": 9090}],
        "endpoints": [
            {
                "addresses": [ip],
                "conditions": {"ready": True},
                "targetRef": {"kind": "Pod", "name": f"pod-{ip}", "uid": f"uid-{ip}"},
            }
            for ip in ips
        ],
    }


def address(ip: str) -> str:
    return f"http://{ip}:9090"


class FakeReader:
    def __init__(self, model: dict[str, Any] | None, *slices: dict[str, Any]) -> None:
        self.model = model
        self.slices = list(slices)

    def has_synced(self, kind: ResourceKind) -> bool:
        return True

    def get(self, kind: ResourceKind, namespace: str, name: str) -> dict[str, Any] | None:
        assert kind == MODEL
        return self.model

    def list(
        self, kind: ResourceKind, namespace: str, *, labels: Mapping[str, str] | None = None
    ) -> list[dict[str, Any]]:
        assert kind == ENDPOINT_SLICE
        return [
            s
            for s in self.slices
            if all(s["metadata"]["labels"].get(k) == v for k, v in (labels or {}).items())
        ]


class FakeRest:
    def __init__(self) -> None:
        self.patches: list[list[dict[str, Any]]] = []

    async def json_patch(
        self,
        kind: ResourceKind,
        namespace: str,
        name: str,
        operations: list[dict[str, Any]],
        *,
        field_manager: str,
    ) -> dict[str, Any]:
        assert field_manager == IDENTITY.field_manager
        self.patches.append(operations)
        return {}


class FakeClient:
    """Records writes; the cache (the reader's model) is not updated, as right after a write."""

    def __init__(self) -> None:
        self.identity = IDENTITY
        self.rest = FakeRest()
        self.statuses: list[dict[str, Any]] = []
        self.status_refusal: ApiError | None = None
        """Raised by every status write."""

    async def apply_status_if_changed(
        self, desired_status: Mapping[str, Any], live: Mapping[str, Any]
    ) -> bool:
        if self.status_refusal is not None:
            raise self.status_refusal
        self.statuses.append(copy.deepcopy(dict(desired_status)))
        return True

    @property
    def status(self) -> dict[str, Any]:
        return self.statuses[-1]


class FakeWorkers:
    """Answers `ok` unless told otherwise per address; `hang` never answers."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, str]] = []
        self.answers: dict[str, str] = {}
        self.in_flight = 0
        self.most_in_flight = 0
        self.gate: anyio.Event | None = None

    async def load(self, endpoint: WorkerEndpoint, lora_name: str, uri: str) -> CallOutcome:
        return await self._answer("load", endpoint, f"{lora_name} {uri}")

    async def unload(self, endpoint: WorkerEndpoint, lora_name: str) -> CallOutcome:
        return await self._answer("unload", endpoint, lora_name)

    async def _answer(self, operation: str, endpoint: WorkerEndpoint, what: str) -> CallOutcome:
        self.calls.append((operation, endpoint.address, what))
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            if self.gate is not None:
                await self.gate.wait()
            answer = self.answers.get(endpoint.address, "ok")
            if answer == "hang":
                await anyio.sleep_forever()
            if answer == "fail":
                return CallOutcome("http_error", "HTTP 500: boom")
            return CallOutcome("success")
        finally:
            self.in_flight -= 1

    def called(self, operation: str) -> list[str]:
        return [address for op, address, _ in self.calls if op == operation]
