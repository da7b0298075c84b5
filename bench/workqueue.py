"""Work-queue throughput: keys per second through add -> get -> done with 8 workers.

A producer adds N distinct keys, each twice (the second add collapses into the first, as informer
bursts do); 8 workers take keys, yield to the event loop once (standing in for a reconcile's
first await) and mark them done. Measured for the bare queue, the rate-limiting queue with the
`workqueue_*` Prometheus metrics, and with every key re-added while it is being processed (the
"dirty while processing" path). The last line is `key=value` pairs for scripts.

    python -m bench.workqueue [--keys 100000] [--workers 8]
"""

from __future__ import annotations

import argparse
import time

import anyio
import anyio.lowlevel

from manager.runtime.workqueue import (
    PrometheusQueueMetrics,
    Queue,
    QueueShutDown,
    RateLimitingQueue,
)


async def drive(queue: Queue[str], keys: int, workers: int, *, readd: bool) -> float:
    """Seconds for `workers` to process `keys` keys (plus one re-add each if `readd`)."""
    names = [f"namespace/object-{index}" for index in range(keys)]
    processed = 0
    expected = keys * (2 if readd else 1)
    finished = anyio.Event()
    readded: set[str] = set()

    async def worker() -> None:
        nonlocal processed
        while True:
            try:
                key = await queue.get()
            except QueueShutDown:
                return
            if readd and key not in readded:
                readded.add(key)
                queue.add(key)  # dirty while processing: queued again after done, once
                queue.add(key)
            await anyio.lowlevel.checkpoint()
            queue.done(key)
            processed += 1
            if processed == expected:
                finished.set()

    started = time.perf_counter()
    async with anyio.create_task_group() as tg:
        for _ in range(workers):
            tg.start_soon(worker)
        for name in names:
            queue.add(name)
            queue.add(name)
        await finished.wait()
        elapsed = time.perf_counter() - started
        queue.shut_down()
    return elapsed


async def main_async(keys: int, workers: int) -> dict[str, float]:
    bare = await drive(Queue(), keys, workers, readd=False)
    metered_queue: RateLimitingQueue[str] = RateLimitingQueue(
        metrics=PrometheusQueueMetrics("bench")
    )
    metered = await drive(metered_queue, keys, workers, readd=False)
    readded = await drive(Queue(), keys, workers, readd=True)
    return {
        "keys": keys,
        "workers": workers,
        "queue_keys_per_s": keys / bare,
        "metered_keys_per_s": keys / metered,
        "readd_passes_per_s": 2 * keys / readded,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=8)
    args = parser.parse_args()
    results = anyio.run(main_async, args.keys, args.workers)
    for key, value in results.items():
        print(f"{key:22} {value:12.0f}")
    print(" ".join(f"{key}={value:.0f}" for key, value in results.items()))


if __name__ == "__main__":
    main()
