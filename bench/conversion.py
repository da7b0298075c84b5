"""The conversion webhook's throughput and latency, and what reading graphs at v1beta1 costs.

Two parts, each skippable:

* server: `dynamo-operator webhook-server` in its own process over TLS on 127.0.0.1 (as in
  production: the API server is another process). N keep-alive TLS clients each send one
  ConversionReview at a time to `/convert` and time every round trip. Four shapes of new
  objects (more than the webhook remembers, so each is converted): one stored four-component
  graph (Frontend, Planner, prefill and decode workers, with the metadata, managedFields and
  status a stored object carries) v1alpha1 -> v1beta1 and back, as the API server sends for a GET
  (or a write at v1beta1), and 100 distinct such graphs in one review, as it sends for a LIST;
  and a fifth, the same stored graph again and again, as the garbage collector reads an owner
  it has not seen yet (answered from what the webhook remembers). Every answer must be a
  Success with as many objects as were sent.
* cluster: a local control plane with the CRD chart's CRDs and a `ConversionServer` (the same
  webhook server, `--configure-crd-conversion`), `--graphs` such graphs created at v1alpha1 (the
  storage version) with their status; then, interleaved in the same run, `--repetitions` LISTs of
  the namespace at v1alpha1 (no webhook) and at v1beta1 (one review of every object through the
  webhook), and GETs of one graph at each. Median, min and max of each, and the ratio of the
  medians (target: LIST at v1beta1 <= 1.5x v1alpha1). The webhook process's CPU time says where
  the conversions happen: the API server keeps a watch cache per served version, so a LIST
  (served from it) calls no webhook, while every write is converted once for the v1beta1 cache
  (CPU during creation) and a GET at v1beta1 (read from etcd) is converted each time.

This measures; it never asserts. The last line is `key=value` pairs.

    python -m bench.conversion [--seconds 5] [--clients 1,16] [--graphs 500] [--repetitions 9]
                               [--skip-server] [--skip-cluster]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import re
import ssl
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import kr8s
import kr8s.asyncio
import orjson

from bench.webhook import realistic_graph
from dynamo_operator.conversion import ALPHA_API_VERSION, BETA_API_VERSION, convert
from e2e.localcluster.controlplane.ephemeral import local_cluster
from e2e.localcluster.ports import free_port
from e2e.support.conversion import ConversionServer
from e2e.support.crds import install_crds
from e2e.support.kinds import GRAPH, GRAPH_BETA
from e2e.support.webhooks import start_webhook_server
from manager.runtime.client import RestClient
from manager.runtime.kinds import NAMESPACE, ResourceKind

SUCCESS = re.compile(rb'"result":\{"status":"Success"')
FIELD_MANAGER = "bench-conversion"
SHAPES = {  # name -> (from, to, objects per review, distinct reviews sent in turn)
    # Each review new objects, more than the webhook remembers (`ConversionMemo`): conversions.
    "a2b_x1": (ALPHA_API_VERSION, BETA_API_VERSION, 1, 1024),
    "b2a_x1": (BETA_API_VERSION, ALPHA_API_VERSION, 1, 1024),
    "a2b_x100": (ALPHA_API_VERSION, BETA_API_VERSION, 100, 32),
    "b2a_x100": (BETA_API_VERSION, ALPHA_API_VERSION, 100, 32),
    # The same stored graph again and again, as the garbage collector reads an owner it has not
    # yet seen through its watch: answered from what the webhook remembers.
    "a2b_again": (ALPHA_API_VERSION, BETA_API_VERSION, 1, 1),
}


# -- the objects ----------------------------------------------------------------------------------


def fields_v1(value: Any) -> dict[str, Any]:
    """A managedFields `fieldsV1` of the shape the API server writes for `value`."""
    if not isinstance(value, dict):
        return {}
    return {".": {}, **{f"f:{key}": fields_v1(item) for key, item in value.items()}}


def graph_status(services: list[str]) -> dict[str, Any]:
    ready = {"type": "Ready", "status": "True", "reason": "AllComponentsReady", "message": ""}
    return {
        "state": "successful",
        "observedGeneration": 1,
        "conditions": [{**ready, "lastTransitionTime": "2026-01-05T10:00:00Z"}],
        "services": {
            name: {
                "componentKind": "Deployment",
                "componentName": f"qwen3-disagg-{name.lower()}",
                "replicas": 2,
                "updatedReplicas": 2,
                "readyReplicas": 2,
                "availableReplicas": 2,
            }
            for name in services
        },
    }


def stored_graph(index: int, namespace: str = "inference") -> dict[str, Any]:
    """The four-component graph as the API server stores it at v1alpha1 and sends it in a
    ConversionReview: full metadata (managedFields of the client and of the operator's status
    writes) and a status."""
    graph = realistic_graph()
    spec = graph["spec"]
    assert isinstance(spec, dict)
    status = graph_status(list(spec["services"]))
    graph["metadata"] = {
        "name": f"qwen3-disagg-{index:04d}",
        "namespace": namespace,
        "uid": str(uuid.UUID(int=index + 1)),
        "resourceVersion": str(100_000 + index),
        "generation": 1,
        "creationTimestamp": "2026-01-05T09:58:00Z",
        "labels": {"app.kubernetes.io/part-of": "qwen3", "team": "inference"},
        "managedFields": [
            {
                "manager": "kubectl",
                "operation": "Apply",
                "apiVersion": ALPHA_API_VERSION,
                "time": "2026-01-05T09:58:00Z",
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:spec": fields_v1(spec)},
            },
            {
                "manager": "dynamo-operator",
                "operation": "Update",
                "apiVersion": ALPHA_API_VERSION,
                "time": "2026-01-05T10:00:00Z",
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:status": fields_v1(status)},
                "subresource": "status",
            },
        ],
    }
    graph["status"] = status
    return graph


def review_bytes(source: str, desired: str, count: int, variant: int = 0) -> bytes:
    """A review of `count` stored graphs, the `variant`-th such set (other names and uids)."""
    objects = [stored_graph(variant * count + index) for index in range(count)]
    if source == BETA_API_VERSION:
        objects = [convert(obj, BETA_API_VERSION) for obj in objects]
    review = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "ConversionReview",
        "request": {"uid": str(uuid.uuid4()), "desiredAPIVersion": desired, "objects": objects},
    }
    body = orjson.dumps(review)
    head = (
        "POST /convert?timeout=30s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "Content-Type: application/json\r\nAccept: application/json, */*\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


# -- part 1: the server alone ---------------------------------------------------------------------


async def exchange(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, payload: bytes
) -> bytes:
    writer.write(payload)
    head = await reader.readuntil(b"\r\n\r\n")
    length = int(re.search(rb"(?i)content-length: (\d+)", head)[1])  # type: ignore[index]
    return await reader.readexactly(length)


async def client_loop(
    port: int,
    context: ssl.SSLContext,
    payloads: list[bytes],
    deadline: float,
    latencies: list[float],
) -> int:
    """One keep-alive connection, one review at a time, `payloads` in turn; returns the number
    of failures."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=context)
    failures = 0
    for payload in itertools.cycle(payloads):
        if time.perf_counter() >= deadline:
            break
        started = time.perf_counter()
        body = await exchange(reader, writer, payload)
        latencies.append(time.perf_counter() - started)
        if SUCCESS.search(body) is None:
            failures += 1
    writer.close()
    return failures


async def check_answer(port: int, context: ssl.SSLContext, shape: str) -> int:
    """One review of `shape`: the server's objects must be what the library converts; returns
    the request's size in bytes."""
    source, desired, count, _ = SHAPES[shape]
    payload = review_bytes(source, desired, count)
    reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=context)
    answer = orjson.loads(await exchange(reader, writer, payload))["response"]
    writer.close()
    sent = orjson.loads(payload.split(b"\r\n\r\n", 1)[1])["request"]["objects"]
    if answer["result"]["status"] != "Success":
        raise SystemExit(f"{shape}: the server failed the review: {answer['result']}")
    if answer["convertedObjects"] != [convert(obj, desired) for obj in sent]:
        raise SystemExit(f"{shape}: the server's objects differ from the library's")
    return len(payload)


async def measure_server(
    port: int, context: ssl.SSLContext, shape: str, clients: int, seconds: float
) -> dict[str, float]:
    source, desired, count, variants = SHAPES[shape]
    payloads = [review_bytes(source, desired, count, variant) for variant in range(variants)]
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds
    started = time.perf_counter()
    failures = await asyncio.gather(
        *(
            # Each client its own share of the reviews: none sends what another just did.
            client_loop(port, context, payloads[client::clients] or payloads, deadline, latencies)
            for client in range(clients)
        )
    )
    elapsed = time.perf_counter() - started
    if sum(failures):
        raise SystemExit(f"{shape}: {sum(failures)} reviews of valid graphs failed")
    cuts = statistics.quantiles(latencies, n=100)
    return {
        "rps": len(latencies) / elapsed,
        "objects_per_s": len(latencies) * count / elapsed,
        "p50_ms": cuts[49] * 1000,
        "p99_ms": cuts[98] * 1000,
    }


def run_server_part(args: argparse.Namespace) -> dict[str, float]:
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="bench-conversion-") as directory:
        cert_dir = Path(directory)
        port = free_port()
        process = start_webhook_server(port, cert_dir)
        try:
            context = ssl.create_default_context(cafile=str(cert_dir / "ca.crt"))
            print(f"/convert over TLS, {args.seconds:g} s per row", flush=True)
            print(f"  {'shape':<9} {'clients':>7} {'reviews/s':>10} {'objects/s':>10} "
                  f"{'p50 ms':>8} {'p99 ms':>8} {'KiB':>6}")  # fmt: skip
            for shape in SHAPES:
                size = asyncio.run(check_answer(port, context, shape))
                figures[f"{shape}_request_kib"] = size / 1024
                for clients in args.clients:
                    asyncio.run(measure_server(port, context, shape, clients, 1.0))  # warm-up
                    result = asyncio.run(
                        measure_server(port, context, shape, clients, args.seconds)
                    )
                    print(
                        f"  {shape:<9} {clients:>7} {result['rps']:>10.0f} "
                        f"{result['objects_per_s']:>10.0f} {result['p50_ms']:>8.2f} "
                        f"{result['p99_ms']:>8.2f} {size / 1024:>6.0f}",
                        flush=True,
                    )
                    for key, value in result.items():
                        figures[f"{shape}_c{clients}_{key}"] = value
        finally:
            process.terminate()
            process.wait(timeout=30)
    return figures


# -- part 2: through the API server ---------------------------------------------------------------


def cluster_graph(index: int, namespace: str) -> dict[str, Any]:
    """`stored_graph` as a client creates it: no server-owned metadata, no status."""
    graph = stored_graph(index, namespace)
    graph.pop("status")
    metadata = graph["metadata"]
    graph["metadata"] = {key: metadata[key] for key in ("name", "namespace", "labels")}
    return graph


async def for_each(items: list[Any], action: Callable[[Any], Any], workers: int) -> None:
    pending = iter(items)

    async def worker() -> None:
        for item in pending:
            await action(item)

    async with anyio.create_task_group() as tg:
        for _ in range(workers):
            tg.start_soon(worker)


async def create_graphs(rest: RestClient, namespace: str, count: int) -> None:
    async def create(index: int) -> None:
        graph = cluster_graph(index, namespace)
        await rest.create(GRAPH, graph, field_manager=FIELD_MANAGER)
        status = graph_status(list(graph["spec"]["services"]))
        await rest.merge_patch(
            GRAPH,
            namespace,
            graph["metadata"]["name"],
            {"status": status},
            field_manager="dynamo-operator",
            subresource="status",
        )

    await for_each(list(range(count)), create, 16)


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of process `pid` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def timed_get(rest: RestClient, path: str, expect: Callable[[bytes], None]) -> float:
    started = time.perf_counter()
    response = await rest.transport.request("GET", path)
    elapsed = time.perf_counter() - started
    if response.status != 200:
        raise SystemExit(f"GET {path}: HTTP {response.status}: {response.body[:500]!r}")
    expect(response.body)
    return elapsed


def expect_list(kind: ResourceKind, count: int) -> Callable[[bytes], None]:
    def check(body: bytes) -> None:
        items = orjson.loads(body)["items"]
        versions = {item["apiVersion"] for item in items}
        if len(items) != count or versions != {kind.api_version}:
            raise SystemExit(f"LIST at {kind.api_version}: {len(items)} items of {versions}")

    return check


def expect_object(kind: ResourceKind) -> Callable[[bytes], None]:
    def check(body: bytes) -> None:
        if orjson.loads(body)["apiVersion"] != kind.api_version:
            raise SystemExit(f"GET at {kind.api_version} answered another version")

    return check


def spread(samples: list[float]) -> dict[str, float]:
    return {
        "median_ms": statistics.median(samples) * 1000,
        "min_ms": min(samples) * 1000,
        "max_ms": max(samples) * 1000,
    }


async def measure_cluster(
    kubeconfig: Path, webhook_pid: int, args: argparse.Namespace
) -> dict[str, float]:
    api = await kr8s.asyncio.api(kubeconfig=str(kubeconfig))
    rest = RestClient.for_api(api)
    try:
        namespace = f"bench-conversion-{uuid.uuid4().hex[:6]}"
        await rest.create(NAMESPACE, {"metadata": {"name": namespace}}, field_manager=FIELD_MANAGER)
        started, webhook_cpu = time.perf_counter(), cpu_seconds(webhook_pid)
        await create_graphs(rest, namespace, args.graphs)
        await anyio.sleep(2)  # the v1beta1 watch cache converts each write as it sees it
        create_cpu_s = cpu_seconds(webhook_pid) - webhook_cpu
        print(
            f"{args.graphs} graphs created (and their status written) in "
            f"{time.perf_counter() - started - 2:.1f} s; webhook CPU meanwhile "
            f"{create_cpu_s:.1f} s ({create_cpu_s / args.graphs * 1000:.1f} ms per graph)",
            flush=True,
        )

        samples: dict[str, list[float]] = {}
        sizes: dict[str, int] = {}
        webhook_cpu_s = dict.fromkeys(["list_alpha", "list_beta", "get_alpha", "get_beta"], 0.0)
        name = cluster_graph(0, namespace)["metadata"]["name"]
        for label, kind in (("alpha", GRAPH), ("beta", GRAPH_BETA)):
            response = await rest.transport.request("GET", kind.collection_path(namespace))
            sizes[label] = len(response.body)
        for repetition in range(args.repetitions + 1):  # the first of each is a warm-up
            order = [("alpha", GRAPH), ("beta", GRAPH_BETA)]
            for label, kind in order if repetition % 2 else order[::-1]:
                webhook_cpu = cpu_seconds(webhook_pid)
                list_s = await timed_get(
                    rest, kind.collection_path(namespace), expect_list(kind, args.graphs)
                )
                if repetition:
                    webhook_cpu_s[f"list_{label}"] += cpu_seconds(webhook_pid) - webhook_cpu
                webhook_cpu = cpu_seconds(webhook_pid)
                get_s = await timed_get(
                    rest, kind.object_path(namespace, name), expect_object(kind)
                )
                if repetition:
                    webhook_cpu_s[f"get_{label}"] += cpu_seconds(webhook_pid) - webhook_cpu
                if repetition:
                    samples.setdefault(f"list_{label}", []).append(list_s)
                    samples.setdefault(f"get_{label}", []).append(get_s)
    finally:
        await rest.transport.aclose()

    figures: dict[str, float] = {"graphs": args.graphs, "repetitions": args.repetitions}
    print(f"LIST of {args.graphs} graphs and GET of one, {args.repetitions} repetitions each")
    print(f"  {'request':<11} {'median ms':>10} {'min ms':>8} {'max ms':>8} {'KiB':>7}")
    for key, values in samples.items():
        summary = spread(values)
        size = sizes[key.split("_")[1]] / 1024 if key.startswith("list") else 0
        print(
            f"  {key:<11} {summary['median_ms']:>10.1f} {summary['min_ms']:>8.1f} "
            f"{summary['max_ms']:>8.1f} {size:>7.0f}"
        )
        figures.update({f"{key}_{stat}": value for stat, value in summary.items()})
    for verb in ("list", "get"):
        ratio = figures[f"{verb}_beta_median_ms"] / figures[f"{verb}_alpha_median_ms"]
        figures[f"{verb}_ratio"] = ratio
    figures["list_alpha_kib"] = sizes["alpha"] / 1024
    figures["list_beta_kib"] = sizes["beta"] / 1024
    figures["create_webhook_cpu_ms_per_graph"] = create_cpu_s / args.graphs * 1000
    for key, seconds in webhook_cpu_s.items():
        figures[f"{key}_webhook_cpu_ms"] = seconds / args.repetitions * 1000
    print("  webhook CPU per request (ms):", *(
        f"{key} {figures[f'{key}_webhook_cpu_ms']:.1f}" for key in webhook_cpu_s
    ))  # fmt: skip
    print(f"  LIST v1beta1/v1alpha1 = {figures['list_ratio']:.2f}x (target <= 1.5x), "
          f"GET {figures['get_ratio']:.2f}x")  # fmt: skip
    return figures


def run_cluster_part(args: argparse.Namespace) -> dict[str, float]:
    with (
        local_cluster("bench-conversion-", with_lws=False) as cluster,
        tempfile.TemporaryDirectory(prefix="bench-conversion-webhook-") as directory,
    ):
        api = kr8s.api(kubeconfig=str(cluster.kubeconfig))
        install_crds(api)
        server = ConversionServer(cluster.kubeconfig, Path(directory))
        server.start(api)
        try:
            assert server.process is not None
            return anyio.run(measure_cluster, cluster.kubeconfig, server.process.pid, args)
        finally:
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="per shape and client count")
    parser.add_argument("--clients", default="1,16", help="comma-separated client counts")
    parser.add_argument("--graphs", type=int, default=500)
    parser.add_argument("--repetitions", type=int, default=9)
    parser.add_argument("--skip-server", action="store_true")
    parser.add_argument("--skip-cluster", action="store_true")
    args = parser.parse_args()
    args.clients = [int(count) for count in args.clients.split(",")]
    figures: dict[str, float] = {}
    if not args.skip_server:
        figures.update(run_server_part(args))
    if not args.skip_cluster:
        figures.update(run_cluster_part(args))
    print(" ".join(f"{key}={value:.2f}" for key, value in figures.items()))


if __name__ == "__main__":
    main()
