"""Calls to the workers' LoRA routes: one shared HTTP client, bounded and timed.

The Dynamo runtime's system server (port ``system``, 9090) serves ``POST /v1/loras`` with
``{"lora_name": <name>, "source": {"uri": <uri>}}`` and ``DELETE /v1/loras/<name>``; any 2xx
answer is success and the body is not read.

One aiohttp session serves every DynamoModel (``HttpLoraWorkers`` is a manager runnable: it opens
the session before the controllers start and closes it after they stop). Its connector caps the
connections in total and per worker, and opens a new connection per call: calls are rare, and a
worker closing an idle keep-alive connection would otherwise fail the next call for nothing.
Every call has a connect and a total timeout, and redirects are not followed. A worker that
hangs, answers 500 or garbage, or closes the connection gives a failed `CallOutcome`, never an
exception, so a bad worker holds one connection for at most the timeout and never stalls other
models. Plain HTTP: the workers serve no TLS. ``dynamo_operator_lora_requests_total`` counts the
calls by operation and result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol
from urllib.parse import quote

import aiohttp
from prometheus_client import Counter

from dynamo_operator.model_endpoints import WorkerEndpoint
from manager.runtime import ClientSessionRunnable

__all__ = ["LORA_REQUESTS", "CallOutcome", "HttpLoraWorkers", "LoraWorkers"]

LORAS_PATH = "/v1/loras"

CallResult = Literal["success", "http_error", "timeout", "connection_error", "invalid_response"]

LORA_REQUESTS = Counter(
    "dynamo_operator_lora_requests_total",
    "LoRA load and unload calls to workers, by operation and result.",
    ["operation", "result"],
)
_DETAIL_BYTES = 200


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """How one call went: ``result`` is the metric label, ``message`` says why it failed."""

    result: CallResult
    message: str | None = None

    @property
    def ok(self) -> bool:
        return self.result == "success"


SUCCESS = CallOutcome("success")


class LoraWorkers(Protocol):
    """The LoRA routes of the workers (a seam: tests give a fake)."""

    async def load(self, endpoint: WorkerEndpoint, lora_name: str, uri: str) -> CallOutcome: ...

    async def unload(self, endpoint: WorkerEndpoint, lora_name: str) -> CallOutcome: ...


class HttpLoraWorkers(ClientSessionRunnable):
    """``LoraWorkers`` over one aiohttp session; see the module doc."""

    def __init__(
        self,
        *,
        request_timeout: float = 30.0,
        connect_timeout: float = 5.0,
        max_connections: int = 64,
        max_connections_per_worker: int = 4,
        user_agent: str = "dynamo-operator",
    ) -> None:
        super().__init__(
            connector=lambda: aiohttp.TCPConnector(
                limit=max_connections, limit_per_host=max_connections_per_worker, force_close=True
            ),
            user_agent=user_agent,
        )
        self.request_timeout = request_timeout
        self._timeout = aiohttp.ClientTimeout(
            total=request_timeout, connect=min(connect_timeout, request_timeout)
        )

    async def load(self, endpoint: WorkerEndpoint, lora_name: str, uri: str) -> CallOutcome:
        body = {"lora_name": lora_name, "source": {"uri": uri}}
        return await self._call("load", "POST", f"{endpoint.address}{LORAS_PATH}", body)

    async def unload(self, endpoint: WorkerEndpoint, lora_name: str) -> CallOutcome:
        url = f"{endpoint.address}{LORAS_PATH}/{quote(lora_name, safe='')}"
        return await self._call("unload", "DELETE", url, None)

    async def _call(
        self, operation: str, method: str, url: str, body: dict[str, Any] | None
    ) -> CallOutcome:
        outcome = await self._request(method, url, body)
        LORA_REQUESTS.labels(operation, outcome.result).inc()
        return outcome

    async def _request(self, method: str, url: str, body: dict[str, Any] | None) -> CallOutcome:
        try:
            async with self.session.request(
                method, url, json=body, allow_redirects=False, timeout=self._timeout
            ) as response:
                if 200 <= response.status < 300:
                    return SUCCESS
                detail = (await response.content.read(_DETAIL_BYTES)).decode(errors="replace")
                message = f"HTTP {response.status}" + (f": {detail.strip()}" if detail else "")
                return CallOutcome("http_error", message)
        except TimeoutError:
            return CallOutcome("timeout", f"no answer within {self.request_timeout:g}s")
        except aiohttp.ClientResponseError as error:
            return CallOutcome("invalid_response", f"invalid response: {error.message}")
        except (aiohttp.ClientConnectionError, OSError) as error:
            return CallOutcome("connection_error", f"connection failed: {error}")
        except aiohttp.ClientError as error:
            return CallOutcome("invalid_response", f"invalid response: {error}")
