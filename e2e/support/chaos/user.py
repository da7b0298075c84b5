"""The chaos user: creates the graphs, edits them while faults land, and remembers the last spec.

Like a GitOps tool it retries a write until the API server takes it (an API server restarting, a
webhook down with failurePolicy Fail, a conflict), within `RETRY_WITHIN`. Edits of one graph are
serialised (a lock per graph); deleting a namespace holds the locks of all its graphs, and the
control-plane lock from the delete until the namespace is gone: an API server restarted while a
namespace terminates can leave its graphs in etcd for good (see `no_namespace_terminating`), so
restarts wait for it. The ledger (`graphs`, `models`) is what the cluster must end up matching.
"""

from __future__ import annotations

import contextlib
import copy
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio

from e2e.support.chaos import specs
from e2e.support.chaos.plan import EditKind, Step
from e2e.support.chaos.retry import RETRIED, retrying
from e2e.support.chaos.webhook import RUN_LABEL
from e2e.support.graphs import USER
from e2e.support.kinds import GRAPH, MODEL
from manager.runtime.client import (
    AlreadyExists,
    NotFound,
    RestClient,
)
from manager.runtime.kinds import NAMESPACE

T = TypeVar("T")
RETRY_WITHIN = 600.0
GONE_WITHIN = 600.0


@dataclass
class ChaosUser:
    rest: RestClient
    run_id: str
    namespaces: list[str]
    graph_count: int
    control_plane_lock: anyio.Lock = field(default_factory=anyio.Lock)
    graphs: dict[int, dict[str, Any]] = field(default_factory=dict)
    """Each graph's last spec, as the user last wrote it."""
    edits: dict[str, int] = field(default_factory=dict)
    refused: int = 0
    """Writes the API server refused because the webhook was down (failurePolicy Fail)."""
    namespace_generation: dict[str, int] = field(default_factory=dict)
    """How many times each namespace was (re)created: PVC identities are per incarnation."""
    _locks: dict[int, anyio.Lock] = field(default_factory=dict)

    def namespace(self, index: int) -> str:
        return self.namespaces[specs.namespace_of(index, len(self.namespaces))]

    def indexes_in(self, namespace: str) -> list[int]:
        return [i for i in range(self.graph_count) if self.namespace(i) == namespace]

    # -- set-up ----------------------------------------------------------------------------------

    async def create_namespaces(self) -> None:
        for namespace in self.namespaces:
            await self._create_namespace(namespace)

    async def create_graphs(self, concurrency: int) -> None:
        pending = iter(range(self.graph_count))

        async def worker() -> None:
            for index in pending:
                async with self._lock(index):
                    await self._create_graph(
                        index, specs.initial_graph(index, self.namespace(index))
                    )

        async with anyio.create_task_group() as group:
            for _ in range(concurrency):
                group.start_soon(worker)

    # -- edits -----------------------------------------------------------------------------------

    async def edit(self, step: Step) -> None:
        kind: EditKind = step.action  # type: ignore[assignment]
        if kind == "namespace_deleted":
            await self._delete_namespace(self.namespaces[step.target])
            self._count(kind)
            return
        async with self._lock(step.target):
            graph = self.graphs[step.target]
            if kind == "graph_recreated":
                await self._recreate(step.target, graph)
            else:
                kind, after = specs.edited(graph, kind, step.value)
                name, namespace = graph["metadata"]["name"], graph["metadata"]["namespace"]
                patch = specs.merge_patch(graph, after)
                await self._retry(
                    f"edit {namespace}/{name}",
                    lambda: self.rest.merge_patch(
                        GRAPH, namespace, name, patch, field_manager=USER
                    ),
                )
                self.graphs[step.target] = after
            self._count(kind)

    async def _recreate(self, index: int, graph: dict[str, Any]) -> None:
        name, namespace = graph["metadata"]["name"], graph["metadata"]["namespace"]
        await self._delete_and_wait(GRAPH, namespace, name)
        await self._create_graph(index, graph)

    async def _delete_namespace(self, namespace: str) -> None:
        indexes = self.indexes_in(namespace)
        async with self.control_plane_lock:
            for index in indexes:
                await self._lock(index).acquire()
            try:
                await self._delete_and_wait(NAMESPACE, None, namespace)
                await self._create_namespace(namespace)
                for index in indexes:
                    await self._create_graph(index, specs.initial_graph(index, namespace))
            finally:
                for index in indexes:
                    self._lock(index).release()

    # -- writes, retried ---------------------------------------------------------------------------

    async def _create_namespace(self, namespace: str) -> None:
        body = {"metadata": {"name": namespace, "labels": {RUN_LABEL: self.run_id}}}
        await self._retry(f"create namespace {namespace}", lambda: self._create(NAMESPACE, body))
        self.namespace_generation[namespace] = self.namespace_generation.get(namespace, 0) + 1
        model = specs.base_model(namespace)
        await self._retry(f"create model in {namespace}", lambda: self._create(MODEL, model))

    async def _create_graph(self, index: int, graph: dict[str, Any]) -> None:
        name = graph["metadata"]["name"]
        await self._retry(f"create graph {name}", lambda: self._create(GRAPH, graph))
        self.graphs[index] = copy.deepcopy(graph)

    async def _create(self, kind: Any, body: dict[str, Any]) -> None:
        # AlreadyExists: an earlier try was stored though its answer was lost.
        with contextlib.suppress(AlreadyExists):
            await self.rest.create(kind, body, field_manager=USER)

    async def _delete_and_wait(self, kind: Any, namespace: str | None, name: str) -> None:
        async def delete() -> None:
            with contextlib.suppress(NotFound):
                await self.rest.delete(kind, namespace, name)

        await self._retry(f"delete {kind.kind} {name}", delete)
        deadline = time.monotonic() + GONE_WITHIN
        while time.monotonic() < deadline:
            try:
                await self.rest.get(kind, namespace, name)
            except NotFound:
                return
            except RETRIED:
                pass
            await anyio.sleep(1.0)
        raise TimeoutError(f"{kind.kind} {name} still there after {GONE_WITHIN:.0f}s")

    async def _retry(self, description: str, write: Callable[[], Awaitable[T]]) -> T:
        return await retrying(description, write, within=RETRY_WITHIN, on_error=self._note)

    def _note(self, error: Exception) -> None:
        if "failed calling webhook" in str(error):
            self.refused += 1

    def _lock(self, index: int) -> anyio.Lock:
        return self._locks.setdefault(index, anyio.Lock())

    def _count(self, kind: str) -> None:
        self.edits[kind] = self.edits.get(kind, 0) + 1
