"""The engine's LoRA adapters: kept in memory only, with the replies Dynamo's system port expects.

Dynamo's worker system port (``DYN_LORA_ENABLED=true``) turns ``POST /v1/loras``,
``DELETE /v1/loras/<name>`` and ``GET /v1/loras`` into calls of the worker's ``load_lora``,
``unload_lora`` and ``list_loras`` endpoints, and maps each reply's ``status`` to the HTTP code:
``success`` is 200, ``error`` is 500. The reply shapes and messages follow the vLLM worker that
ai-dynamo 1.6.1 ships (``dynamo.vllm`` in the image): a repeated load succeeds without reloading, an
unload of an adapter this process does not hold is an error (what a restarted vLLM worker
answers), and the list maps each adapter name to its id. Nothing is downloaded: the source URI is
only recorded, except that a URI under one of ``fail_prefixes`` fails to "download", so tests can
provoke an engine error.

No import of Dynamo here: the table talks to discovery through ``Publisher``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

Reply = dict[str, Any]


@dataclass(frozen=True)
class Adapter:
    name: str
    uri: str
    lora_id: int


class Publisher(Protocol):
    """Advertises a loaded adapter as a servable model, and withdraws it."""

    async def publish(self, adapter: Adapter) -> None: ...

    async def withdraw(self, adapter: Adapter) -> None: ...


class RequestError(ValueError):
    """A request without the fields a load or an unload needs."""


def parse_load_request(request: object) -> tuple[str, str]:
    """``(lora_name, source.uri)`` of a load request."""
    if not isinstance(request, Mapping):
        raise RequestError("Request is required with 'lora_name' and 'source.uri'")
    name = request.get("lora_name")
    if not isinstance(name, str) or not name:
        raise RequestError("'lora_name' is required and must be a string")
    source = request.get("source")
    if not isinstance(source, Mapping) or not source:
        raise RequestError("'source' object is required in request")
    uri = source.get("uri")
    if not isinstance(uri, str) or not uri:
        raise RequestError("'source.uri' is required and must be a string")
    return name, uri


def parse_unload_request(request: object) -> str:
    if not isinstance(request, Mapping):
        raise RequestError("Request is required with 'lora_name' field")
    name = request.get("lora_name")
    if not isinstance(name, str) or not name:
        raise RequestError("'lora_name' is required and must be a string")
    return name


class AdapterTable:
    """The adapters this process holds; every change is serialised by one lock."""

    def __init__(
        self,
        *,
        capacity: int,
        lora_id: Callable[[str], int],
        publisher: Publisher,
        lora_enabled: bool,
        fail_prefixes: tuple[str, ...] = (),
    ) -> None:
        self._capacity = capacity
        self._lora_id = lora_id
        self._publisher = publisher
        self._lora_enabled = lora_enabled
        self._fail_prefixes = fail_prefixes
        self._adapters: dict[str, Adapter] = {}
        self._lock = asyncio.Lock()

    def resolve(self, model: str) -> Adapter | None:
        return self._adapters.get(model)

    def names(self) -> list[str]:
        return sorted(self._adapters)

    async def load(self, request: object) -> Reply:
        try:
            name, uri = parse_load_request(request)
        except RequestError as error:
            return {"status": "error", "message": str(error)}
        async with self._lock:
            held = self._adapters.get(name)
            if held is not None:
                return {
                    "status": "success",
                    "message": f"LoRA adapter '{name}' already loaded",
                    "lora_name": name,
                    "lora_id": held.lora_id,
                    "hot_swap": False,
                }
            if len(self._adapters) >= self._capacity:
                return {
                    "status": "error",
                    "message": "LoRA capacity exceeded: "
                    f"at most {self._capacity} adapter(s) may be loaded",
                    "lora_name": name,
                }
            # vLLM resolves the URI through Dynamo's LoRA manager, which exists only with
            # DYN_LORA_ENABLED=true; this engine fails the same way without it.
            if not self._lora_enabled:
                return {
                    "status": "error",
                    "message": "Failed to download LoRA: LoRAManager not initialized. "
                    "Set DYN_LORA_ENABLED=true to enable URI-based LoRA loading.",
                }
            if uri.startswith(self._fail_prefixes):
                return {
                    "status": "error",
                    "message": f"Failed to download LoRA: cannot fetch {uri}",
                }
            adapter = Adapter(name=name, uri=uri, lora_id=self._lora_id(name))
            try:
                await self._publisher.publish(adapter)
            except Exception as error:
                return {
                    "status": "error",
                    "message": f"Failed to register LoRA '{name}' in discovery registry: {error}",
                    "lora_name": name,
                }
            self._adapters[name] = adapter
            return {
                "status": "success",
                "message": f"LoRA adapter '{name}' loaded successfully",
                "lora_name": name,
                "lora_id": adapter.lora_id,
                "hot_swap": False,
            }

    async def unload(self, request: object) -> Reply:
        try:
            name = parse_unload_request(request)
        except RequestError as error:
            return {"status": "error", "message": str(error)}
        async with self._lock:
            adapter = self._adapters.get(name)
            if adapter is None:
                return {
                    "status": "error",
                    "message": f"LoRA adapter '{name}' not found. Available LoRAs: {self.names()}",
                }
            # Withdrawn from discovery first, so no request is routed to a forgotten adapter.
            try:
                await self._publisher.withdraw(adapter)
            except Exception as error:
                return {
                    "status": "error",
                    "message": f"Failed to unregister LoRA '{name}' "
                    f"from discovery registry: {error}",
                    "lora_name": name,
                }
            del self._adapters[name]
            return {
                "status": "success",
                "message": f"LoRA adapter '{name}' unloaded successfully",
                "lora_name": name,
                "lora_id": adapter.lora_id,
            }

    def listing(self) -> Reply:
        loras = {name: self._adapters[name].lora_id for name in self.names()}
        return {"status": "success", "loras": loras, "count": len(loras)}
