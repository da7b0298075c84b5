"""The engine process: a Dynamo worker on ai-dynamo's real runtime, with LoRA endpoints.

What it does, in the order ai-dynamo 1.6.1's vLLM worker (``dynamo.vllm``) does it:

1. creates a ``DistributedRuntime`` on this event loop (discovery backend and request plane from
   the flags, whose defaults are the ``DYN_DISCOVERY_BACKEND`` / ``DYN_REQUEST_PLANE`` variables
   the mocker reads too);
2. registers the model of ``--model-path`` under ``--model-name`` with ``register_model``
   (token input, chat and completions): the frontend fetches the tokenizer from this worker;
3. serves ``generate`` on ``dyn://<DYN_NAMESPACE>.backend.generate``, answering every request
   with a few token ids of the vocabulary (1000 and up, shifted by the adapter's id when the
   request names a loaded adapter), and with ``--enable-lora`` also ``load_lora``,
   ``unload_lora`` and ``list_loras`` on the same component;
4. stops on SIGTERM or SIGINT: ``runtime.shutdown()`` ends every ``serve_endpoint``.

A loaded adapter is registered as a model of its own (``register_model`` with ``lora_name`` and
``base_model_path``, as vLLM's worker does), so the frontend lists it and routes requests naming
it here; unloading unregisters it. Adapters live in memory only: a restarted engine holds none.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
from collections.abc import AsyncIterator, Sequence
from typing import Any

from dynamo.llm import (
    ModelInput,
    ModelType,
    WorkerType,
    lora_name_to_id,
    register_model,
    unregister_model,
)
from dynamo.runtime import Context, DistributedRuntime, Endpoint
from dynamo.runtime.logging import configure_dynamo_logging

from dynamo_lora_engine.adapters import Adapter, AdapterTable

logger = logging.getLogger("dynamo_lora_engine")

FIRST_TOKEN_ID = 1000  # token ids the mocker emits too: the model's vocabulary holds them
TOKEN_SPAN = 1000
KV_BLOCK_SIZE = 16
HEALTH_CHECK_KEY = "_HEALTH_CHECK"  # marks ai-dynamo's canary requests (dynamo.health_check)


def answer_tokens(count: int, offset: int) -> list[int]:
    """The deterministic answer: ``count`` ids from ``FIRST_TOKEN_ID + offset``, wrapping."""
    return [FIRST_TOKEN_ID + (offset + index) % TOKEN_SPAN for index in range(count)]


def env_true(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def default_endpoint() -> str:
    # As the mocker's default: DYN_NAMESPACE (else "dynamo"), suffixed by
    # DYN_NAMESPACE_WORKER_SUFFIX when that is set.
    namespace = os.environ.get("DYN_NAMESPACE") or "dynamo"
    suffix = os.environ.get("DYN_NAMESPACE_WORKER_SUFFIX")
    if suffix:
        namespace = f"{namespace}-{suffix}"
    return f"dyn://{namespace}.backend.generate"


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python3 -m dynamo_lora_engine",
        description="A CPU test worker on Dynamo's runtime: fixed answers, LoRA endpoints.",
    )
    parser.add_argument("--model-path", required=True, help="directory with tokenizer/config")
    parser.add_argument("--model-name", required=True, help="served model name")
    parser.add_argument("--endpoint", default=default_endpoint(), help="dyn://ns.component.ep")
    parser.add_argument(
        "--discovery-backend",
        choices=["kubernetes", "etcd", "file", "mem"],
        default=os.environ.get("DYN_DISCOVERY_BACKEND", "etcd"),
    )
    parser.add_argument(
        "--request-plane",
        choices=["tcp", "nats"],
        default=os.environ.get("DYN_REQUEST_PLANE", "tcp"),
    )
    parser.add_argument("--event-plane", choices=["zmq", "nats"], default=None)
    parser.add_argument(
        "--enable-lora",
        action="store_true",
        help="serve load_lora/unload_lora/list_loras (as vLLM's --enable-lora)",
    )
    parser.add_argument("--max-loras", type=int, default=8, help="adapters held at once")
    parser.add_argument(
        "--output-tokens", type=int, default=8, help="tokens per answer unless max_tokens is less"
    )
    parser.add_argument(
        "--fail-uri-prefix",
        action="append",
        default=[],
        help="a load of a URI starting so fails like a failed download (repeatable)",
    )
    args = parser.parse_args(argv)
    if args.max_loras < 1 or args.output_tokens < 1:
        parser.error("--max-loras and --output-tokens must be at least 1")
    return args


class DiscoveryPublisher:
    """Registers a loaded adapter as a model on the generate endpoint, as vLLM's worker does."""

    def __init__(self, endpoint: Endpoint, model_path: str, capacity: int) -> None:
        self._endpoint = endpoint
        self._model_path = model_path
        self._capacity = capacity

    async def publish(self, adapter: Adapter) -> None:
        await register_model(
            ModelInput.Tokens,
            ModelType.Chat | ModelType.Completions,
            self._endpoint,
            self._model_path,
            worker_type=WorkerType.Aggregated,
            kv_cache_block_size=KV_BLOCK_SIZE,
            user_data={"lora_adapter": True, "lora_id": adapter.lora_id},
            lora_name=adapter.name,
            base_model_path=self._model_path,
            ignore_weights=True,
            max_gpu_lora_count=self._capacity,
        )

    async def withdraw(self, adapter: Adapter) -> None:
        await unregister_model(self._endpoint, lora_name=adapter.name)


class Engine:
    """The endpoint handlers: async generators, one reply each for the LoRA ones."""

    def __init__(self, model_name: str, output_tokens: int, adapters: AdapterTable) -> None:
        self.model_name = model_name
        self.output_tokens = output_tokens
        self.adapters = adapters

    async def generate(self, request: dict[str, Any], context: Context) -> AsyncIterator[Any]:
        model = request.get("model") or self.model_name
        offset = 0
        if model != self.model_name:
            adapter = self.adapters.resolve(model)
            if adapter is None:
                # What vLLM's worker raises for a name it neither serves nor holds.
                raise ValueError(f"unknown model or LoRA adapter: '{model}'")
            offset = adapter.lora_id % TOKEN_SPAN
        prompt = len(request.get("token_ids") or [])
        max_tokens = (request.get("stop_conditions") or {}).get("max_tokens")
        count = self.output_tokens if max_tokens is None else min(max_tokens, self.output_tokens)
        # "length" when the caller's limit ended the answer, "stop" when the engine did (as at EOS).
        finish = "length" if max_tokens is not None and max_tokens <= self.output_tokens else "stop"
        tokens = answer_tokens(count, offset)
        for token in tokens[:-1]:
            if context.is_stopped():
                yield {"token_ids": [], "index": 0, "finish_reason": "cancelled"}
                return
            yield {"token_ids": [token], "index": 0}
            await asyncio.sleep(0)  # let cancellations and other requests in between tokens
        # The last chunk (with no token when max_tokens is 0) ends the stream.
        yield {
            "token_ids": tokens[-1:],
            "index": 0,
            "finish_reason": finish,
            "completion_usage": {
                "prompt_tokens": prompt,
                "completion_tokens": count,
                "total_tokens": prompt + count,
            },
        }

    async def load_lora(self, request: Any = None) -> AsyncIterator[Any]:
        reply = await self.adapters.load(request)
        logger.info("load_lora %s: %s", _name(request), reply["message"])
        yield reply

    async def unload_lora(self, request: Any = None) -> AsyncIterator[Any]:
        reply = await self.adapters.unload(request)
        logger.info("unload_lora %s: %s", _name(request), reply["message"])
        yield reply

    async def list_loras(self, request: Any = None) -> AsyncIterator[Any]:
        yield self.adapters.listing()


def _name(request: Any) -> str:
    return repr(request.get("lora_name")) if isinstance(request, dict) else "(no body)"


def _endpoint_path(endpoint: str) -> tuple[str, str, str]:
    parts = endpoint.removeprefix("dyn://").split(".")
    if len(parts) != 3 or not all(parts):
        raise SystemExit(f"--endpoint must be dyn://namespace.component.endpoint, not {endpoint!r}")
    return parts[0], parts[1], parts[2]


async def serve(args: argparse.Namespace) -> None:
    loop = asyncio.get_running_loop()
    runtime = DistributedRuntime(
        loop, args.discovery_backend, args.request_plane, event_plane=args.event_plane
    )
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, runtime.shutdown)
    namespace, component, name = _endpoint_path(args.endpoint)
    generate = runtime.endpoint(f"{namespace}.{component}.{name}")
    adapters = AdapterTable(
        capacity=args.max_loras,
        lora_id=lora_name_to_id,
        publisher=DiscoveryPublisher(generate, args.model_path, args.max_loras),
        lora_enabled=env_true("DYN_LORA_ENABLED"),
        fail_prefixes=tuple(args.fail_uri_prefix),
    )
    engine = Engine(args.model_name, args.output_tokens, adapters)
    await register_model(
        ModelInput.Tokens,
        ModelType.Chat | ModelType.Completions,
        generate,
        args.model_path,
        args.model_name,
        worker_type=WorkerType.Aggregated,
        kv_cache_block_size=KV_BLOCK_SIZE,
        # The base card advertises adapter capacity, so the frontend may place adapters here.
        max_gpu_lora_count=args.max_loras if args.enable_lora else None,
    )
    # With a canary payload the runtime reports the worker healthy once generate is served
    # (DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS is deprecated in 1.6.1).
    canary = {
        "token_ids": [FIRST_TOKEN_ID],
        "stop_conditions": {"max_tokens": 1, "ignore_eos": True},
        "sampling_options": {"temperature": 0.0},
        HEALTH_CHECK_KEY: True,
    }
    served = [generate.serve_endpoint(engine.generate, health_check_payload=canary)]
    if args.enable_lora:
        for endpoint_name, handler in (
            ("load_lora", engine.load_lora),
            ("unload_lora", engine.unload_lora),
            ("list_loras", engine.list_loras),
        ):
            endpoint = runtime.endpoint(f"{namespace}.{component}.{endpoint_name}")
            served.append(endpoint.serve_endpoint(handler))
    logger.info(
        "serving %s as %s (LoRA endpoints: %s)", args.model_path, args.model_name, args.enable_lora
    )
    try:
        await asyncio.gather(*served)
    finally:
        runtime.shutdown()


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    configure_dynamo_logging()
    asyncio.run(serve(args))
