"""What the operator's informers hold, kind by kind, and what a full relist costs.

The operator is assembled exactly as `dynamo-operator run` assembles it (`Operator`: every
controller registers the kinds it caches, with their selectors and transforms), but not run:
each informer lists its kind through the operator's own client and stores the result, while
`tracemalloc` counts the Python memory that stays (the store and its indexes) and the peak on
the way. Then every informer relists at once, as after a compaction (410) or an API server that
lost its watch cache: the time that takes (untraced) and the memory it needs on top of the full
cache (traced). Python memory, not RSS: the process's RSS adds the interpreter, the imported
modules and what the allocator has not returned.

    python -m bench.cache_memory      # against KUBECONFIG: prints a table, then key=value
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from dataclasses import dataclass

import anyio
import kr8s.asyncio

from manager.app import build_parser
from manager.app.commands import Operator, options_from_arguments
from manager.runtime.cache import Cache, Informer
from manager.runtime.client import RestClient
from manager.runtime.identity import Identity
from manager.runtime.logging import configure_logging

MIB = 1024 * 1024


@dataclass(frozen=True)
class KindFootprint:
    kind: str
    objects: int
    kept_bytes: int
    list_peak_bytes: int

    @property
    def bytes_per_object(self) -> float:
        return self.kept_bytes / self.objects if self.objects else 0.0


@dataclass(frozen=True)
class Relist:
    seconds: float
    peak_bytes: int
    objects: int


def assembled_operator(rest: RestClient) -> Operator:
    """The operator `run` with default flags would be, with its cache filled by no one yet."""
    parser, _ = build_parser(["run"])
    options = options_from_arguments(parser.parse_args(["run"]), {"POD_NAMESPACE": "default"})
    identity = Identity.for_product("bench", domain="example.com", version="0")
    return Operator(options, identity, rest)


async def _list_into(informer: Informer) -> int:
    """The informer's own list (page by page, through its reflector); the objects it holds."""
    await informer.reflector.relist()
    return len(informer.store)


async def fill(cache: Cache) -> list[KindFootprint]:
    """List every kind into its informer, one at a time, counting what each keeps."""
    footprints = []
    tracemalloc.start()
    try:
        for informer in cache.informers:
            tracemalloc.reset_peak()
            before = tracemalloc.get_traced_memory()[0]
            objects = await _list_into(informer)
            kept, peak = tracemalloc.get_traced_memory()
            footprints.append(
                KindFootprint(informer.kind.kind, objects, kept - before, peak - before)
            )
    finally:
        tracemalloc.stop()
    return footprints


async def relist_all(cache: Cache, *, traced: bool) -> Relist:
    """Every informer lists again at once, into its full store (no change: no delta)."""
    counts: list[int] = []

    async def relist(informer: Informer) -> None:
        counts.append(await _list_into(informer))

    if traced:
        tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0] if traced else 0
        started = time.perf_counter()
        async with anyio.create_task_group() as group:
            for informer in cache.informers:
                group.start_soon(relist, informer)
        seconds = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1] - before if traced else 0
    finally:
        if traced:
            tracemalloc.stop()
    return Relist(seconds, peak, sum(counts))


async def measure(rest: RestClient) -> tuple[list[KindFootprint], Relist]:
    configure_logging("warning")  # the controllers' handlers see the lists, at debug level
    cache = assembled_operator(rest).manager.cache
    if not isinstance(cache, Cache):
        raise TypeError(f"the operator's cache is {type(cache).__name__}, not the informer cache")
    footprints = await fill(cache)
    timed = await relist_all(cache, traced=False)
    traced = await relist_all(cache, traced=True)
    return footprints, Relist(timed.seconds, traced.peak_bytes, timed.objects)


def report(footprints: list[KindFootprint], relist: Relist) -> tuple[list[str], dict[str, float]]:
    """Table lines and `key=value` figures."""
    lines = [f"{'kind':28} {'objects':>8} {'KiB kept':>10} {'B/object':>9} {'list peak KiB':>14}"]
    figures: dict[str, float] = {}
    for entry in sorted(footprints, key=lambda f: -f.kept_bytes):
        if not entry.objects:
            continue
        lines.append(
            f"{entry.kind:28} {entry.objects:8} {entry.kept_bytes / 1024:10.0f}"
            f" {entry.bytes_per_object:9.0f} {entry.list_peak_bytes / 1024:14.0f}"
        )
        figures[f"cache_bytes_per_{entry.kind.lower()}"] = round(entry.bytes_per_object)
    objects = sum(f.objects for f in footprints)
    figures["cache_objects"] = objects
    figures["cache_mib"] = sum(f.kept_bytes for f in footprints) / MIB
    figures["relist_s"] = relist.seconds
    figures["relist_peak_mib"] = relist.peak_bytes / MIB
    return lines, figures


async def main_async() -> dict[str, float]:
    api = await kr8s.asyncio.api()
    rest = RestClient.for_api(api)
    try:
        lines, figures = report(*await measure(rest))
    finally:
        await rest.transport.aclose()
    print(*lines, sep="\n")
    return figures


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    figures = anyio.run(main_async)
    print(" ".join(f"{key}={value:.2f}" for key, value in figures.items()))


if __name__ == "__main__":
    main()
