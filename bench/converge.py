"""Convergence of N four-service graphs through `dynamo-operator run`, against a bare floor.

One local control plane, for each N (default 100, then 500), in fresh namespaces deleted (and
waited for) after each run:

* floor: no operator. A bare client (`RestClient`, `--floor-requests` writes in flight, 64)
  creates the N DynamoGraphDeployments and exactly the objects the operator would create for
  them (`dynamo_operator.render.render_objects`: once, the namespace's discovery ServiceAccount
  and its RoleBinding to the ClusterRole the chart installs (`--discovery-own-role`: and a Role
  of its own, as namespace-restricted installs have); per service a DCD, its Deployment and
  Service), owner references stripped so that nothing waits for an owner: the discovery
  account, then every Deployment, then the rest; then waits until every Deployment is
  available. What no operator can beat: pods first, at the cluster's pace.
* operator: `dynamo-operator run` as a process, as users run it (`--max-concurrent-reconciles
  --workers`, `--max-concurrent-low-priority-reconciles --low-priority-workers` when given,
  `LOG_LEVEL=info` to a file), started fresh; the client (`--concurrency` graphs at once, 16)
  POSTs the N graphs and waits until every graph's `status.state` is `successful`. Then, from
  the operator's `/metrics`: API requests per graph (`rest_client_requests_total`, all verbs,
  Events included, counted from readiness until the operator is idle after convergence), writes
  and Events per graph, writes during `--steady-seconds` of steady state, and the process's
  peak RSS (`VmHWM`).

The graph: Frontend, decode, prefill and one aggregated worker, one replica each, no GPU
requests (kwok would need 1000 fake GPUs at N = 500). Pods need room: the bench adds kwok Nodes
(110 pods each, like the local cluster's own) until 4 x max(N) x 1.1 pods fit, and deletes them
at the end.

Every 5 s a line shows the progress (objects done/seen), the machine's and the operator's CPU, the
share of the machine's CPU time the hypervisor gave other guests (`stolen`: the same run is slower
when it is high; `stolen_pct` per run), the operator's queue depth (`queue_low`: of it, the work
queued at `LOW_PRIORITY`, Services and statuses that wait), its workers reconciling and its requests
so far: the time profile. `--profile` runs the operator through `bench/converge_profile.py` with
`LOG_LEVEL=debug`, which records every API request, and prints requests by verb and resource with
their latency, writes per object, the fields that made the operator write and the size of what it
caches. Each run also reports, from the API server's `/metrics`, the garbage collector's reads of
owners, the conversion webhook's calls a graph with the API server's mean wait on one, and what else
makes the API server convert: re-initialized watch caches, LISTs and consistency checks of our kinds
(`bench.apiserver_figures`); `--apiserver-profile` records the API server's CPU profile through each
run (with `LOCAL_CLUSTER_PROFILING=1`). `--floor-apply` makes the floor write with server-side
apply, as the operator does (a diagnostic); `--rounds` repeats floor and operator (in turns, the
operator first in odd rounds, each round's ratio from its own pair) and reports the median round (by
ratio) with the ratios' spread (`n<N>_ratio_min`, `n<N>_ratio_max`). Targets (issues 20 and 32):
ratio <= 1.1 at N = 100 and <= 1.2 at 500 and 2,000, <= 18 requests per graph at 500, zero
steady-state writes, RSS <= 150 MB at N = 500 and <= 400 MB at N = 2,000, after a full relist too
(`--restart`: the operator started again lists everything at once; its writes until idle, none
expected, and its RSS). This measures; it never asserts.

    python -m bench.converge [--graphs 100 500] [--workers 8] [--low-priority-workers M]
                             [--concurrency 16] [--floor-requests 64] [--profile]
                             [--apiserver-profile] [--floor-apply] [--rounds 1]
                             [--steady-seconds 60] [--restart] [--log-dir DIR]

Uses KUBECONFIG when set, else starts the local control plane. The last line is `key=value` pairs.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import kr8s.asyncio
from prometheus_client import REGISTRY

from bench import apiserver_figures, cache_memory, converge_profile
from dynamo_operator.builders import DISCOVERY_RULES
from dynamo_operator.render import render_objects
from dynamo_operator.settings import OperatorSettings
from e2e.localcluster.conditions import is_condition_true
from e2e.localcluster.controlplane import kwok_nodes
from e2e.localcluster.ports import free_port
from e2e.localcluster.processes import spawn
from e2e.support.conversion import crds_served
from e2e.support.kinds import CLUSTER_ROLE
from e2e.support.metrics_scrape import Samples, of_families, requests_by_method, total, writes
from e2e.support.operator_process import OperatorProcess
from manager.app.kinds import COMPONENT, GRAPH
from manager.runtime.cache import Informer
from manager.runtime.client import (
    AlreadyExists,
    KindRegistry,
    NotFound,
    RestClient,
    TransportError,
)
from manager.runtime.kinds import (
    DEPLOYMENT,
    NAMESPACE,
    ResourceKind,
)
from manager.runtime.workqueue import LOW_PRIORITY

ROOT = Path(__file__).resolve().parent.parent
NODE = ResourceKind("v1", "Node", "nodes", namespaced=False)
IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.7.0"
SERVICES = {  # name -> (componentType, module)
    "Frontend": ("frontend", "dynamo.frontend"),
    "VllmDecodeWorker": ("decode", "dynamo.vllm"),
    "VllmPrefillWorker": ("prefill", "dynamo.vllm"),
    "VllmWorker": ("worker", "dynamo.vllm"),
}
DISCOVERY_CLUSTER_ROLE = "dynamo-operator-k8s-service-discovery"
"""The ClusterRole the chart installs cluster-wide (its default) and names to the operator."""


def operator_settings(own_role: bool) -> OperatorSettings:
    """What `dynamo-operator run` renders on this cluster: no LeaderWorkerSet, Volcano or
    Istio; the namespace's discovery account bound to the chart's ClusterRole, or with
    `--discovery-own-role` to a Role of its own (namespace-restricted installs)."""
    cluster_role = None if own_role else DISCOVERY_CLUSTER_ROLE
    return OperatorSettings(available_apis=frozenset(), discovery_cluster_role_name=cluster_role)


FIELD_MANAGER = "bench"
FLOOR_RETRIES = 3
"""Retries of a floor POST the API server gave no answer to in time."""
ACCESS_KINDS = frozenset({"ServiceAccount", "Role", "RoleBinding"})
PODS_PER_NODE = 110
SAMPLE_SECONDS = 5.0
QUIET_SECONDS, QUIET_CPU, QUIET_LIMIT = 5.0, 0.35, 600.0
"""How long, how idle and at most how long the control plane is waited for between runs."""


def kubeconfig() -> AbstractContextManager[Path]:
    from e2e.localcluster import kubeconfig_or_local_cluster

    cluster: AbstractContextManager[Path] = kubeconfig_or_local_cluster(prefix="bench-converge-")
    return cluster


def bench_graph(name: str, namespace: str) -> dict[str, Any]:
    services = {
        service: {
            "componentType": component_type,
            "replicas": 1,
            "extraPodSpec": {
                "mainContainer": {
                    "image": IMAGE,
                    "command": ["python3", "-m", module],
                    "args": ["--model", "Qwen/Qwen3-0.6B"],
                }
            },
        }
        for service, (component_type, module) in SERVICES.items()
    }
    return {
        "apiVersion": GRAPH.api_version,
        "kind": GRAPH.kind,
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "backendFramework": "vllm",
            "envs": [{"name": "HF_HOME", "value": "/models"}],
            "services": services,
        },
    }


# -- progress: informers that note when every object exists and when every one is done ---------


def deployment_available(obj: dict[str, Any]) -> bool:
    status, replicas = obj.get("status") or {}, (obj.get("spec") or {}).get("replicas", 1)
    return bool(
        status.get("observedGeneration", 0) >= obj["metadata"].get("generation", 0)
        and status.get("updatedReplicas", 0) >= replicas
        and status.get("availableReplicas", 0) >= replicas
    )


def component_available(obj: dict[str, Any]) -> bool:
    return is_condition_true(obj, "Available")


def graph_successful(obj: dict[str, Any]) -> bool:
    return (obj.get("status") or {}).get("state") == "successful"


@dataclass
class Progress:
    """An informer's event handler: which objects exist and which are done, and when the count
    of each first reached `expected` (seconds after `started`)."""

    label: str
    expected: int
    done: Callable[[dict[str, Any]], bool]
    started: float = 0.0
    seen: set[str] = field(default_factory=set)
    finished: set[str] = field(default_factory=set)
    all_seen_s: float | None = None
    all_done_s: float | None = None
    complete: anyio.Event = field(default_factory=anyio.Event)

    def on_add(self, obj: dict[str, Any], is_in_initial_list: bool) -> None:
        self._see(obj)

    def on_update(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        self._see(new)

    def on_delete(self, obj: dict[str, Any]) -> None:
        pass

    def _see(self, obj: dict[str, Any]) -> None:
        name = obj["metadata"]["name"]
        self.seen.add(name)
        if len(self.seen) >= self.expected and self.all_seen_s is None:
            self.all_seen_s = time.perf_counter() - self.started
        if self.done(obj):
            self.finished.add(name)
            if len(self.finished) >= self.expected and self.all_done_s is None:
                self.all_done_s = time.perf_counter() - self.started
                self.complete.set()


async def watch_progress(
    rest: RestClient, namespace: str, progress: Iterable[tuple[ResourceKind, Progress]], tg: Any
) -> None:
    for kind, handler in progress:
        informer = Informer(rest, kind, namespace)
        informer.add_event_handler(handler)
        tg.start_soon(informer.run)
        await informer.wait_for_sync()


# -- cluster set-up and clean-up ------------------------------------------------------------------


async def install_discovery_cluster_role(rest: RestClient) -> None:
    """The ClusterRole the chart installs for graphs' discovery accounts."""
    role = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": DISCOVERY_CLUSTER_ROLE},
        "rules": list(DISCOVERY_RULES),
    }
    with contextlib.suppress(AlreadyExists):  # a reused cluster
        await rest.create(CLUSTER_ROLE, role, field_manager=FIELD_MANAGER)


def _schedulable(node: dict[str, Any]) -> bool:
    taints = (node.get("spec") or {}).get("taints") or []
    return bool(kwok_nodes.node_is_ready(node)) and not any(
        t.get("key") == "node.kubernetes.io/not-ready" for t in taints
    )


async def add_node_room(rest: RestClient, pods: int) -> list[str]:
    """Create kwok Nodes until the schedulable ones hold `pods` pods; their names."""
    nodes, _ = await rest.list_all(NODE, None)
    room = sum(
        int((node.get("status") or {}).get("allocatable", {}).get("pods", "0"))
        for node in nodes
        if _schedulable(node)
    )
    missing = max(0, math.ceil((pods - room) / PODS_PER_NODE))
    names = [f"converge-kwok-{index:03d}" for index in range(missing)]
    for name in names:
        await rest.create(NODE, kwok_nodes.node_manifest(name), field_manager=FIELD_MANAGER)
    with anyio.fail_after(180):
        for name in names:
            while not _schedulable(await rest.get(NODE, None, name)):  # noqa: ASYNC110
                await anyio.sleep(0.5)
    print(f"pod room: {room} on existing nodes, added {len(names)} kwok nodes", flush=True)
    return names


async def create_namespace(rest: RestClient, prefix: str) -> str:
    namespace = f"{prefix}-{uuid.uuid4().hex[:6]}"
    await rest.create(NAMESPACE, {"metadata": {"name": namespace}}, field_manager=FIELD_MANAGER)
    return namespace


async def delete_namespace(rest: RestClient, namespace: str) -> float:
    started = time.perf_counter()
    try:
        await rest.delete(NAMESPACE, None, namespace)
        with anyio.fail_after(900):
            while True:
                await rest.get(NAMESPACE, None, namespace)
                await anyio.sleep(1.0)
    except NotFound:
        pass
    return time.perf_counter() - started


async def for_each(
    items: list[Any], action: Callable[[Any], Awaitable[None]], workers: int
) -> None:
    pending = iter(items)

    async def worker() -> None:
        for item in pending:
            await action(item)

    async with anyio.create_task_group() as tg:
        for _ in range(workers):
            tg.start_soon(worker)


# -- machine and process figures -----------------------------------------------------------------


def process_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


CONTROL_PLANE = ("kube-apiserver", "etcd", "kube-controller-manager", "kube-scheduler", "kwok")
CONVERSION_FLAG = b"--configure-crd-conversion"
"""In the command line of the bench's own conversion webhook (`crds_served`)."""


def control_plane_cpu_seconds() -> dict[str, float]:
    """CPU seconds each control-plane program has used (summed over its processes), and the
    bench's conversion webhook (which the API server calls for whatever reads a graph or a
    component at v1beta1): what a run cost the cluster, beside what it cost the operator."""
    seconds = dict.fromkeys((*CONTROL_PLANE, "conversion-webhook"), 0.0)
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            arguments = (proc / "cmdline").read_bytes().split(b"\0")
            name = arguments[0].decode().rsplit("/", 1)[-1]
            if CONVERSION_FLAG in arguments:
                name = "conversion-webhook"
            if name in seconds:
                seconds[name] += process_cpu_seconds(int(proc.name))
        except (OSError, IndexError, ValueError):
            continue  # gone since listed
    return seconds


def control_plane_cpu_used(before: dict[str, float]) -> dict[str, float]:
    """`cpu_<program>_s` for each control-plane program since `before`."""
    now = control_plane_cpu_seconds()
    return {f"cpu_{name.replace('-', '_')}_s": now[name] - before[name] for name in before}


def process_memory_mib(pid: int, key: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{key}:"):
            return int(line.split()[1]) / 1024
    return math.nan


def machine_busy() -> tuple[float, float, float]:
    """(busy, stolen, total) jiffies of all CPUs since boot: stolen by the hypervisor for other
    guests, which makes the same cluster slower from one run to the next."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, values[7], sum(values)


async def scrape(operator: OperatorProcess, attempts: int = 5) -> Samples:
    """The operator's `/metrics`, retried: one failed scrape should not end a long run."""
    for attempt in range(attempts):
        try:
            return await anyio.to_thread.run_sync(operator.metrics)
        except RuntimeError as error:
            if attempt == attempts - 1 or operator.process.poll() is not None:
                raise
            print(f"  scrape failed ({error}), retrying", flush=True)
            await anyio.sleep(1.0)
    raise AssertionError("unreachable")


# -- the two runs ----------------------------------------------------------------------------------


@dataclass
class Timeline:
    """Progress sampled every few seconds, printed after a run: the time profile."""

    rows: list[str] = field(default_factory=list)
    stolen: float = 0.0
    jiffies: float = 0.0

    @property
    def stolen_pct(self) -> float:
        """The share of the run's CPU time the hypervisor gave other guests, in percent."""
        return 100 * self.stolen / max(self.jiffies, 1)

    async def sample(
        self, started: float, progress: list[Progress], operator: OperatorProcess | None
    ) -> None:
        busy, stolen, jiffies = machine_busy()
        cpu = process_cpu_seconds(operator.process.pid) if operator else 0.0
        low = str(LOW_PRIORITY)
        while True:
            await anyio.sleep(SAMPLE_SECONDS)
            now_busy, now_stolen, now_total = machine_busy()
            row = f"t={time.perf_counter() - started:6.1f}s " + " ".join(
                f"{p.label}={len(p.finished)}/{len(p.seen)}" for p in progress
            )
            elapsed = max(now_total - jiffies, 1)
            row += f" machine_cpu={(now_busy - busy) / elapsed:.0%}"
            row += f" stolen={(now_stolen - stolen) / elapsed:.0%}"
            self.stolen += now_stolen - stolen
            self.jiffies += now_total - jiffies
            busy, stolen, jiffies = now_busy, now_stolen, now_total
            if operator is not None:
                now_cpu = process_cpu_seconds(operator.process.pid)
                samples = await scrape(operator)
                row += (
                    f" operator_cpu={(now_cpu - cpu) / SAMPLE_SECONDS:.0%}"
                    f" queue={total(samples, 'workqueue_depth'):.0f}"
                    f" queue_low={total(samples, 'workqueue_depth', priority=low):.0f}"
                    f" workers={total(samples, 'controller_runtime_active_workers'):.0f}"
                    f" requests={total(samples, 'rest_client_requests_total'):.0f}"
                    f" rss_mib={process_memory_mib(operator.process.pid, 'VmRSS'):.0f}"
                )
                cpu = now_cpu
            self.rows.append(row)


async def create_floor_objects(
    rest: RestClient,
    graphs: list[dict[str, Any]],
    settings: OperatorSettings,
    requests: int,
    *,
    apply: bool = False,
) -> None:
    """The graphs and every object the operator would make for them, owner references stripped
    (nothing waits for an owner's uid), `requests` writes in flight: the namespace's discovery
    account first (pods name it), then every Deployment (what gates a graph is its pods), then
    the graphs, components and Services. `apply`: the children with server-side apply instead
    of POST, as the operator writes them (to tell the cost of apply from the operator's own)."""
    namespace = graphs[0]["metadata"]["namespace"]
    kinds = KindRegistry()
    kinds.add(GRAPH)
    kinds.add(COMPONENT)
    rendered = [
        unowned(obj)
        for obj in render_objects(graphs, settings, default_namespace=namespace).objects
    ]
    access = [obj for obj in rendered if obj["kind"] in ACCESS_KINDS]
    children = [obj for obj in rendered if obj["kind"] not in ACCESS_KINDS]
    deployments = [obj for obj in children if obj["kind"] == DEPLOYMENT.kind]
    others = [obj for obj in children if obj["kind"] != DEPLOYMENT.kind]

    async def write(obj: dict[str, Any]) -> None:
        kind = kinds.kind_of(obj)
        if apply and kind != GRAPH:
            await rest.apply(kind, obj, field_manager=FIELD_MANAGER)
        else:
            await floor_create(rest, kind, obj)

    for obj in access:
        await write(obj)
    await for_each([*deployments, *graphs, *others], write, requests)


async def floor_create(rest: RestClient, kind: ResourceKind, obj: dict[str, Any]) -> dict[str, Any]:
    """POST `obj`, again when the API server gave no answer in time (at N = 2,000 a Service
    create waited more than the client's 30 s); a retry finding it made reads it back."""
    metadata = obj["metadata"]
    for attempt in itertools.count():
        try:
            return await rest.create(kind, obj, field_manager=FIELD_MANAGER)
        except TransportError:
            if attempt == FLOOR_RETRIES:
                raise
        except AlreadyExists:
            if not attempt:
                raise
            return await rest.get(kind, metadata.get("namespace"), metadata["name"])
    raise AssertionError("unreachable")


def unowned(obj: dict[str, Any]) -> dict[str, Any]:
    metadata = {k: v for k, v in obj["metadata"].items() if k != "ownerReferences"}
    return {**obj, "metadata": metadata}


async def run_floor(
    rest: RestClient, n: int, args: argparse.Namespace, *, last: bool = False
) -> dict[str, float]:
    namespace = await create_namespace(rest, f"converge-floor-{n}")
    graphs = [bench_graph(f"g-{index:04d}", namespace) for index in range(n)]
    expected = n * len(SERVICES)
    deployments = Progress("deployments_available", expected, deployment_available)
    timeline = Timeline()
    result: dict[str, float] = {}
    async with anyio.create_task_group() as tg:
        await watch_progress(rest, namespace, [(DEPLOYMENT, deployments)], tg)
        apiserver = await apiserver_figures.counters(rest)
        if args.apiserver_profile:
            tg.start_soon(apiserver_figures.record_profiles, rest, args.log_dir, namespace)
        started = deployments.started = time.perf_counter()
        cluster_cpu = control_plane_cpu_seconds()
        tg.start_soon(timeline.sample, started, [deployments], None)
        before = of_families(REGISTRY.collect())
        await create_floor_objects(
            rest, graphs, args.settings, args.floor_requests, apply=args.floor_apply
        )
        result["created_s"] = time.perf_counter() - started
        after = of_families(REGISTRY.collect())
        verb = "PATCH" if args.floor_apply else "POST"
        seconds, count = (
            total(after, f"rest_client_request_duration_seconds_{part}", verb=verb)
            - total(before, f"rest_client_request_duration_seconds_{part}", verb=verb)
            for part in ("sum", "count")
        )
        result["write_latency_ms"] = 1000 * seconds / max(count, 1)
        with anyio.move_on_after(args.timeout):
            await deployments.complete.wait()
        result["floor_s"] = deployments.all_done_s or math.nan
        result.update(control_plane_cpu_used(cluster_cpu))
        result.update((await apiserver_figures.counters(rest)).since(apiserver, n))
        result["stolen_pct"] = timeline.stolen_pct
        result["deployments_created_s"] = deployments.all_seen_s or math.nan
        tg.cancel_scope.cancel()
    print(f"-- floor N={n} ({namespace})", *timeline.rows, sep="\n  ", flush=True)
    print(f"  {_format(result)}", flush=True)
    await _clean_up(rest, namespace, last)
    return result


async def _clean_up(rest: RestClient, namespace: str, last: bool) -> None:
    """Delete the run's namespace, which the next run would pay for; the last run's goes with
    the control plane (at 2,000 graphs its deletion alone takes ten minutes)."""
    if last:
        print("  namespace left to the control plane's teardown (the last run)", flush=True)
        return
    print(f"  namespace deleted in {await delete_namespace(rest, namespace):.1f}s", flush=True)
    waited, conversions = await wait_until_quiet(rest)
    print(f"  then quiet after {waited:.1f}s ({conversions:.0f} conversions meanwhile)", flush=True)


async def wait_until_quiet(rest: RestClient) -> tuple[float, float]:
    """Wait until the control plane has finished with what went (at most `QUIET_LIMIT` s): work
    left over from one run's deletion (the v1beta1 watch cache converts one event at a time, the
    controller manager catches up) would be the next run's to pay for. At 2,000 graphs none was
    left once the namespace was gone (quiet in 5.6 s, no conversion), which this shows for every
    run. Quiet: `QUIET_SECONDS` without a conversion and with the machine's CPU under
    `QUIET_CPU`. The seconds waited and the conversions meanwhile."""
    started = time.perf_counter()
    first = last = (await apiserver_figures.counters(rest)).conversions
    busy, _, jiffies = machine_busy()
    quiet_since = started
    while time.perf_counter() - started < QUIET_LIMIT:
        await anyio.sleep(1.0)
        conversions = (await apiserver_figures.counters(rest)).conversions
        now_busy, _, now_jiffies = machine_busy()
        cpu = (now_busy - busy) / max(now_jiffies - jiffies, 1)
        busy, jiffies = now_busy, now_jiffies
        if conversions != last or cpu >= QUIET_CPU:
            quiet_since = time.perf_counter()
        elif time.perf_counter() - quiet_since >= QUIET_SECONDS:
            break
        last = conversions
    return time.perf_counter() - started, last - first


async def warm_up(rest: RestClient, settings: OperatorSettings) -> None:
    """Two floor graphs, untimed: the first run should not pay for cold connections and the
    API server's first custom resources."""
    namespace = await create_namespace(rest, "converge-warm-up")
    graphs = [bench_graph(f"g-{index:04d}", namespace) for index in range(2)]
    await create_floor_objects(rest, graphs, settings, requests=4)
    await delete_namespace(rest, namespace)


def start_operator(
    path: Path, log_dir: Path, n: int, args: argparse.Namespace
) -> tuple[OperatorProcess, Path | None]:
    metrics_port, health_port = free_port(), free_port()
    log_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / "operator.log"
    request_log = log_dir / "requests.jsonl" if args.profile else None
    if request_log is not None:
        launcher = [sys.executable, "-m", "bench.converge_profile", str(request_log)]
    else:
        launcher = [sys.executable, "-m", "manager.app.cli"]
    arguments: tuple[str, ...] = (
        "run",
        f"--metrics-bind-address=127.0.0.1:{metrics_port}",
        f"--health-probe-bind-address=127.0.0.1:{health_port}",
        f"--max-concurrent-reconciles={args.workers}",
    )
    if args.low_priority_workers is not None:
        arguments += (f"--max-concurrent-low-priority-reconciles={args.low_priority_workers}",)
    if cluster_role := args.settings.discovery_cluster_role_name:
        arguments += (f"--discovery-cluster-role-name={cluster_role}",)
    level = "debug" if args.profile else args.log_level
    env = {**os.environ, "KUBECONFIG": str(path), "LOG_LEVEL": level}
    with log_path.open("wb") as log_file:
        # The operator ends if the bench dies (its cluster does too).
        process = spawn(
            [*launcher, *arguments],
            sig=signal.SIGTERM,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=ROOT,
        )
    return OperatorProcess(process, log_path, metrics_port, health_port, arguments), request_log


async def settle(operator: OperatorProcess, limit: float) -> tuple[float, Samples]:
    """Wait until the queues are empty and no write was made for 5 s (at most `limit` s)."""
    started = time.perf_counter()
    quiet_since, last = started, -1.0
    while True:
        samples = await scrape(operator)
        now = time.perf_counter()
        if writes(samples) != last or total(samples, "workqueue_depth") > 0:
            quiet_since, last = now, writes(samples)
        if now - quiet_since >= 5.0 or now - started >= limit:
            return now - started, samples
        await anyio.sleep(0.5)


async def run_operator(
    rest: RestClient,
    path: Path,
    n: int,
    args: argparse.Namespace,
    log_dir: Path,
    *,
    last: bool = False,
) -> dict[str, float]:
    namespace = await create_namespace(rest, f"converge-operator-{n}")
    operator, request_log = start_operator(path, log_dir, n, args)
    pid = operator.process.pid
    expected = n * len(SERVICES)
    graphs = Progress("graphs_successful", n, graph_successful)
    components = Progress("dcds_available", expected, component_available)
    deployments = Progress("deployments_available", expected, deployment_available)
    timeline = Timeline()
    result: dict[str, float] = {}
    try:
        await anyio.to_thread.run_sync(operator.wait_ready)
        before, cpu_before = (
            await scrape(operator),
            process_cpu_seconds(pid),
        )
        result["startup_requests"] = total(before, "rest_client_requests_total")
        result["startup_rss_mib"] = process_memory_mib(pid, "VmRSS")
        async with anyio.create_task_group() as tg:
            progress = [(GRAPH, graphs), (COMPONENT, components), (DEPLOYMENT, deployments)]
            await watch_progress(rest, namespace, progress, tg)
            apiserver = await apiserver_figures.counters(rest)
            if args.apiserver_profile:
                tg.start_soon(apiserver_figures.record_profiles, rest, args.log_dir, namespace)
            started = time.perf_counter()
            cluster_cpu = control_plane_cpu_seconds()
            wall_started = time.time()
            for _, handler in progress:
                handler.started = started
            tg.start_soon(timeline.sample, started, [h for _, h in progress], operator)
            await for_each(
                [bench_graph(f"g-{index:04d}", namespace) for index in range(n)],
                lambda graph: _create(rest, GRAPH, graph),
                args.concurrency,
            )
            result["created_s"] = time.perf_counter() - started
            with anyio.move_on_after(args.timeout):
                await graphs.complete.wait()
            wall_converged = time.time()
            converged = await scrape(operator)
            if args.profile:
                footprint = await converge_profile.cached_bytes(rest, namespace)
            result["operator_s"] = graphs.all_done_s or math.nan
            result["dcds_created_s"] = components.all_seen_s or math.nan
            result["deployments_created_s"] = deployments.all_seen_s or math.nan
            result["deployments_available_s"] = deployments.all_done_s or math.nan
            result["dcds_available_s"] = components.all_done_s or math.nan
            result["operator_cpu_s"] = process_cpu_seconds(pid) - cpu_before
            result.update(control_plane_cpu_used(cluster_cpu))
            result.update((await apiserver_figures.counters(rest)).since(apiserver, n))
            result["stolen_pct"] = timeline.stolen_pct
            result["settle_s"], settled = await settle(operator, limit=60.0)
            wall_settled = time.time()
            tg.cancel_scope.cancel()
        steady_before = writes(settled)
        await anyio.sleep(args.steady_seconds)
        steady = await scrape(operator)
        result["steady_writes"] = writes(steady) - steady_before
        result["rss_mib"] = process_memory_mib(pid, "VmHWM")
        result.update(_per_graph(before, converged, settled, n))
        cache_lines, cache_figures = cache_memory.report(*await cache_memory.measure(rest))
        result.update(cache_figures)
        if args.restart:
            result.update(await measure_restart(path, n, args, log_dir, operator))
    finally:
        await anyio.to_thread.run_sync(_stop, operator)
    print(f"-- operator N={n} ({namespace}, log {operator.log_path})", *timeline.rows, sep="\n  ")
    print(f"  {_format(result)}", flush=True)
    print("  what the operator's informers keep (bench.cache_memory):", *cache_lines, sep="\n    ")
    if request_log is not None:
        converge_profile.print_profile(
            request_log, operator.log_path, n, wall_started, wall_converged, wall_settled
        )
        print("  what the operator caches of this namespace (JSON without managedFields):")
        for line in footprint:
            print(f"    {line}")
    await _clean_up(rest, namespace, last)
    return result


async def measure_restart(
    path: Path, n: int, args: argparse.Namespace, log_dir: Path, running: OperatorProcess
) -> dict[str, float]:
    """Stop the operator and start it again: a restart lists every object at once (the worst
    relist) and must change nothing. Its writes from ready until idle, and its RSS then."""
    await anyio.to_thread.run_sync(_stop, running)
    restarted, _ = start_operator(path, log_dir / "restarted", n, args)
    try:
        await anyio.to_thread.run_sync(restarted.wait_ready)
        ready = await scrape(restarted)
        _, idle = await settle(restarted, limit=300.0)
        pid = restarted.process.pid
        return {
            "restart_writes": writes(idle) - writes(ready),
            "restart_rss_mib": process_memory_mib(pid, "VmRSS"),
            "restart_peak_rss_mib": process_memory_mib(pid, "VmHWM"),
        }
    finally:
        await anyio.to_thread.run_sync(_stop, restarted)


async def _create(rest: RestClient, kind: ResourceKind, obj: dict[str, Any]) -> None:
    await rest.create(kind, obj, field_manager=FIELD_MANAGER)


def _stop(operator: OperatorProcess) -> None:
    try:
        operator.stop(timeout=60)
    except subprocess.TimeoutExpired:
        operator.kill()


def _per_graph(before: Samples, converged: Samples, settled: Samples, n: int) -> dict[str, float]:
    def delta(series: str, after: Samples, /, **labels: str) -> float:
        return total(after, series, **labels) - total(before, series, **labels)

    methods_before = requests_by_method(before)
    figures = {
        "requests_per_graph": delta("rest_client_requests_total", settled) / n,
        "requests_per_graph_at_convergence": delta("rest_client_requests_total", converged) / n,
        "writes_per_graph": (writes(settled) - writes(before)) / n,
        "events_per_graph": delta("event_recorder_writes_total", settled) / n,
        "events_dropped": delta("event_recorder_dropped_total", settled),
        "post_convergence_writes": writes(settled) - writes(converged),
    }
    for method, value in sorted(requests_by_method(settled).items()):
        figures[f"{method.lower()}_per_graph"] = (value - methods_before.get(method, 0.0)) / n
    for controller, per in (("dynamographdeployment", n), ("dynamocomponentdeployment", 4 * n)):
        short = "dgd" if controller.startswith("dynamograph") else "dcd"
        reconciles = delta("controller_runtime_reconcile_total", settled, controller=controller)
        figures[f"{short}_reconciles_per_object"] = reconciles / per
        queued = delta("workqueue_queue_duration_seconds_sum", settled, name=controller)
        taken = delta("workqueue_queue_duration_seconds_count", settled, name=controller)
        figures[f"{short}_queue_wait_ms"] = 1000 * queued / max(taken, 1)
        worked = delta("workqueue_work_duration_seconds_sum", settled, name=controller)
        figures[f"{short}_work_ms"] = 1000 * worked / max(taken, 1)
    return figures


def _or_inf(value: float) -> float:
    return math.inf if math.isnan(value) else value


def _format(figures: dict[str, float]) -> str:
    return " ".join(f"{key}={_value(value)}" for key, value in figures.items())


def _value(value: float) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return f"{value:.2f}" if isinstance(value, float) else str(value)


async def main_async(args: argparse.Namespace) -> dict[str, float]:
    log_dir: Path = args.log_dir
    figures: dict[str, float] = {
        "workers": args.workers,
        "low_priority_workers": -1
        if args.low_priority_workers is None
        else args.low_priority_workers,
        "concurrency": args.concurrency,
        "floor_requests": args.floor_requests,
        "floor_apply": int(args.floor_apply),
        "discovery_own_role": int(args.discovery_own_role),
    }
    own_cluster = not os.environ.get("KUBECONFIG")
    with kubeconfig() as path, crds_served(path):
        api = await kr8s.asyncio.api(kubeconfig=str(path))
        rest = RestClient.for_api(api)
        nodes: list[str] = []
        try:
            await install_discovery_cluster_role(rest)
            nodes = await add_node_room(rest, math.ceil(4 * max(args.graphs) * 1.1))
            await warm_up(rest, args.settings)
            for n in args.graphs:
                rounds = []
                for round_ in range(args.rounds):
                    # Odd rounds run the operator first: whichever runs second on the cluster
                    # pays for the first one's namespace deletion (garbage collection, etcd).
                    operator_log = log_dir / f"n{n}-r{round_}"
                    # On its own control plane, the last run's namespace goes with it.
                    last = own_cluster and n == args.graphs[-1] and round_ == args.rounds - 1
                    if round_ % 2:
                        operator = await run_operator(rest, path, n, args, operator_log)
                        floor = await run_floor(rest, n, args, last=last)
                    else:
                        floor = await run_floor(rest, n, args)
                        operator = await run_operator(rest, path, n, args, operator_log, last=last)
                    rounds.append((operator["operator_s"] / floor["floor_s"], floor, operator))
                rounds.sort(key=lambda entry: _or_inf(entry[0]))
                ratio, floor, operator = rounds[(len(rounds) - 1) // 2]
                figures[f"n{n}_floor_s"] = floor["floor_s"]
                figures[f"n{n}_operator_s"] = operator["operator_s"]
                figures[f"n{n}_ratio"] = ratio
                if len(rounds) > 1:
                    figures[f"n{n}_ratio_min"] = rounds[0][0]
                    figures[f"n{n}_ratio_max"] = rounds[-1][0]
                for key in (
                    "requests_per_graph",
                    "writes_per_graph",
                    "events_per_graph",
                    "steady_writes",
                    "rss_mib",
                    "cache_mib",
                    "relist_s",
                    "relist_peak_mib",
                    "operator_cpu_s",
                    "cpu_kube_apiserver_s",
                    "cpu_conversion_webhook_s",
                    "owner_reads_per_graph",
                    "conversions_per_graph",
                    "conversion_ms",
                    "watch_cache_inits",
                    "watch_cache_init_objects_per_graph",
                    "lists_of_ours",
                    "consistency_checks_of_ours",
                    "events_dropped",
                    "restart_writes",
                    "restart_rss_mib",
                    "restart_peak_rss_mib",
                ):
                    if key in operator:
                        figures[f"n{n}_{key}"] = operator[key]
                figures[f"n{n}_floor_cpu_kube_apiserver_s"] = floor["cpu_kube_apiserver_s"]
        finally:
            for name in nodes:
                await rest.delete(NODE, None, name)
            await rest.transport.aclose()
    print(f"operator logs in {log_dir}")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", type=int, nargs="+", default=[100, 500], metavar="N")
    parser.add_argument("--workers", type=int, default=8, help="--max-concurrent-reconciles")
    parser.add_argument(
        "--low-priority-workers",
        type=int,
        default=None,
        help="--max-concurrent-low-priority-reconciles (default: the operator's own; -1 printed)",
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        default=16,
        help="graphs the operator run's client has in flight",
    )
    parser.add_argument(
        "--floor-requests", type=int, default=64, help="writes the floor's client has in flight"
    )
    parser.add_argument("--steady-seconds", type=float, default=60.0)
    parser.add_argument("--timeout", type=float, default=1800.0, help="per run, to converge")
    parser.add_argument("--log-level", default="info", choices=["info", "warning"])
    parser.add_argument("--log-dir", default=None, help="operator logs (default: a temp dir)")
    parser.add_argument("--profile", action="store_true", help="record and break down requests")
    parser.add_argument(
        "--apiserver-profile",
        action="store_true",
        help="record the API server's CPU profile through each phase (bench.apiserver_figures)",
    )
    parser.add_argument(
        "--floor-apply",
        action="store_true",
        help="the floor writes with server-side apply instead of POST (a diagnostic)",
    )
    parser.add_argument(
        "--restart",
        action="store_true",
        help="then restart the operator: its writes (none expected) and RSS after a full list",
    )
    parser.add_argument(
        "--rounds", type=int, default=1, help="floor and operator runs per N; the median counts"
    )
    parser.add_argument(
        "--discovery-own-role",
        action="store_true",
        help="the discovery account's own Role, as restricted installs have, not the ClusterRole",
    )
    args = parser.parse_args()
    args.settings = operator_settings(args.discovery_own_role)
    args.log_dir = Path(args.log_dir or tempfile.mkdtemp(prefix="bench-converge-logs-"))
    args.log_dir.mkdir(parents=True, exist_ok=True)
    figures = anyio.run(main_async, args)
    print(_format(figures))


if __name__ == "__main__":
    main()
