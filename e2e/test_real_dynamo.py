"""Graphs that serve: real Dynamo processes (ai-dynamo 1.6.1, CPU, the mocker engine) under the
operator installed by Helm on the real node.

The graphs are shaped like upstream's mocker examples and set nothing the operator should set:
the Frontend has only an image, there is no etcd and no NATS, the probes are the defaults. They
are applied together at the start (each waits about a minute for its frontend's first readiness
check) and the tests then run in order on them: an aggregated graph answering through its
frontend's Service, a disaggregated one, workers scaled 1 -> 3 -> 1, an env change rolled out
under load, a LoRA loaded, restored and unloaded through Dynamo's real `/v1/loras` routes, and
last the same graph moved to etcd discovery (`--etcdAddr`) with an etcd the pods reach.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from localcluster import ApiError, ensure_binaries, wait_for

from e2e.chart import OPERATOR_CHART
from e2e.dynamo_image import dynamo_image_tar  # noqa: F401 (fixture)
from e2e.dynamo_model import model_files
from e2e.dynamo_serving import (
    MODEL,
    SYSTEM_PORT,
    HttpError,
    aggregated_graph,
    chat,
    disaggregated_graph,
    http_json,
    lora_graph,
    model_config_map,
    served_requests,
    wait_until_answering,
)
from e2e.graphs import GRAPH, is_converged
from e2e.helm_install import CONVERGE, RELEASE, SYSTEM, Installed, install
from e2e.operator_image import operator_image_tar  # noqa: F401 (fixture)
from e2e.operator_process import free_port
from e2e.real_node import RealNodeCluster, real_node_fixture  # noqa: F401 (fixture)

pytestmark = [pytest.mark.e2e, pytest.mark.local_control_plane]

MODEL_KIND = "/apis/nvidia.com/v1alpha1/namespaces/{ns}/dynamomodels"
WORKER_METADATA = "/apis/nvidia.com/v1alpha1/namespaces/{ns}/dynamoworkermetadatas"
ADAPTER = "tiny-adapter"


@dataclass
class Serving:
    installed: Installed
    namespace: str
    applied_at: dict[str, float] = field(default_factory=dict)
    facts: dict[str, Any] = field(default_factory=dict)

    @property
    def admin(self) -> Any:
        return self.installed.admin

    def frontend_url(self, graph: str) -> str:
        service = self.admin.get(f"/api/v1/namespaces/{self.namespace}/services/{graph}-frontend")
        return f"http://{service['spec']['clusterIP']}:8000"

    def converged(self, graph: str) -> dict[str, Any]:
        return self.installed.converged(self.namespace, graph)

    def pods(self, component: str) -> list[dict[str, Any]]:
        selector = f"nvidia.com/selector={component}"
        path = f"/api/v1/namespaces/{self.namespace}/pods?labelSelector={selector}"
        pods: list[dict[str, Any]] = self.admin.get(path)["items"]
        return [p for p in pods if not p["metadata"].get("deletionTimestamp")]

    def ready_pod_ips(self, component: str) -> list[str]:
        return sorted(
            p["status"]["podIP"]
            for p in self.pods(component)
            if any(
                c["type"] == "Ready" and c["status"] == "True"
                for c in p["status"].get("conditions") or ()
            )
        )

    def patch_graph(self, graph: str, patch: dict[str, Any]) -> dict[str, Any]:
        path = GRAPH.object_path(self.namespace, graph)
        result: dict[str, Any] = self.admin.patch(path, patch)
        return result


@pytest.fixture(scope="module")
def serving(
    real_node: RealNodeCluster,
    operator_image_tar: Path,  # noqa: F811 (fixture)
    dynamo_image_tar: Path,  # noqa: F811 (fixture)
) -> Serving:
    real_node.import_image(dynamo_image_tar)
    installed = install(real_node, operator_image_tar)
    namespace = real_node.create_namespace("serve")
    serving = Serving(installed, namespace)
    installed.admin.create(
        f"/api/v1/namespaces/{namespace}/configmaps", model_config_map(model_files())
    )
    for graph in (aggregated_graph("agg"), disaggregated_graph("disagg"), lora_graph("lora")):
        installed.admin.create(GRAPH.collection_path(namespace), graph)
        serving.applied_at[graph["metadata"]["name"]] = time.monotonic()
    return serving


def test_an_aggregated_graph_is_successful_once_its_pods_are_ready_and_answers(
    serving: Serving, record_property: Any
) -> None:
    graph = serving.converged("agg")

    for component in ("agg-frontend", "agg-worker"):
        [pod] = serving.pods(component)
        [status] = pod["status"]["containerStatuses"]
        assert status["ready"] is True, component
        assert status["restartCount"] == 0, component
    assert graph["status"]["state"] == "successful"
    frontend = serving.frontend_url("agg")
    answered = wait_until_answering(frontend)
    first_answer = time.monotonic() - serving.applied_at["agg"]
    models = http_json("GET", f"{frontend}/v1/models")
    assert [m["id"] for m in models["data"]] == [MODEL]
    assert chat(frontend, "What is Dynamo?")
    # The worker published itself for Kubernetes discovery, owned by its pod.
    [metadata] = serving.admin.get(WORKER_METADATA.format(ns=serving.namespace))["items"]
    [worker_pod] = serving.pods("agg-worker")
    assert metadata["metadata"]["name"] == worker_pod["metadata"]["name"]
    assert metadata["metadata"]["ownerReferences"][0]["uid"] == worker_pod["metadata"]["uid"]
    serving.facts["apply_to_first_answer_s"] = round(first_answer, 1)
    record_property("apply_to_first_answer_seconds", round(first_answer, 1))
    record_property("successful_to_first_answer_seconds", round(answered, 1))
    rss = _dynamo_rss()
    record_property("dynamo_rss_mib", rss)
    print(f"\napply to first answer {first_answer:.1f}s; RSS (MiB) {rss}")


def test_a_disaggregated_graph_answers_through_prefill_and_decode(serving: Serving) -> None:
    serving.converged("disagg")
    frontend = serving.frontend_url("disagg")
    wait_until_answering(frontend)

    answers = [chat(frontend, f"question {index}") for index in range(5)]

    assert all(answers)
    for component in ("disagg-prefill", "disagg-decode"):
        [ip] = serving.ready_pod_ips(component)
        assert served_requests(ip) >= 5, component


def test_workers_scaled_up_and_down_are_routed_to_while_they_live(serving: Serving) -> None:
    frontend = serving.frontend_url("agg")
    serving.patch_graph("agg", {"spec": {"services": {"Worker": {"replicas": 3}}}})
    serving.converged("agg")
    ips = wait_for("three ready workers", lambda: _exactly(serving.ready_pod_ips("agg-worker"), 3))
    before = {ip: served_requests(ip) for ip in ips}

    def every_worker_served() -> bool:
        for index in range(6):
            chat(frontend, f"spread {index}")
        return all(served_requests(ip) > before[ip] for ip in ips)

    wait_for("the frontend routing to each of the three workers", every_worker_served, timeout=120)

    serving.patch_graph("agg", {"spec": {"services": {"Worker": {"replicas": 1}}}})
    serving.converged("agg")
    [survivor] = wait_for("one worker left", lambda: _exactly(serving.pods("agg-worker"), 1))
    ip = survivor["status"]["podIP"]
    wait_for(
        "the frontend forgetting the removed workers",
        lambda: len(serving.admin.get(WORKER_METADATA.format(ns=serving.namespace))["items"]) == 1,
        timeout=120,
    )
    start = served_requests(ip)

    for index in range(10):
        chat(frontend, f"after scale-down {index}")

    assert served_requests(ip) - start == 10


def test_an_env_change_rolls_the_workers_out_under_load(
    serving: Serving, record_property: Any
) -> None:
    frontend = serving.frontend_url("agg")
    wait_until_answering(frontend)
    load = _Load(frontend)
    load.start()
    try:
        time.sleep(2)
        patched = serving.patch_graph(
            "agg",
            {"spec": {"services": {"Worker": {"envs": [{"name": "ROLLOUT", "value": "2"}]}}}},
        )
        generation = patched["metadata"]["generation"]
        premature = _watch_rollout(serving, generation)
        time.sleep(3)
    finally:
        load.stop()
    record_property("rollout_requests_sent", load.sent)
    record_property("rollout_requests_failed", len(load.failures))
    print(
        f"\nrollout under load: {load.sent} sent, {len(load.failures)} failed {load.failures[:3]}"
    )
    assert not premature, f"the graph was successful before its rollout ended: {premature}"
    assert load.sent > 20
    assert not load.failures, f"{len(load.failures)} of {load.sent} failed: {load.failures[:3]}"


def test_a_lora_is_loaded_restored_after_a_worker_restart_and_unloaded(serving: Serving) -> None:
    serving.converged("lora")
    models = MODEL_KIND.format(ns=serving.namespace)
    serving.admin.create(
        models,
        {
            "apiVersion": "nvidia.com/v1alpha1",
            "kind": "DynamoModel",
            "metadata": {"name": ADAPTER},
            "spec": {
                "modelName": ADAPTER,
                "baseModelName": MODEL,
                "modelType": "lora",
                "source": {"uri": "hf://example/tiny-adapter"},
            },
        },
    )
    [ip] = serving.ready_pod_ips("lora-worker")
    wait_for("the adapter loaded on the worker", lambda: ADAPTER in _loras(ip), timeout=CONVERGE)
    wait_for("the model ready", lambda: _ready_endpoints(serving, models) == 1, timeout=CONVERGE)

    [pod] = serving.pods("lora-worker")
    serving.admin.delete(f"/api/v1/namespaces/{serving.namespace}/pods/{pod['metadata']['name']}")
    new_ip = wait_for(
        "a new worker pod ready",
        lambda: next(iter(set(serving.ready_pod_ips("lora-worker")) - {ip}), None),
        timeout=CONVERGE,
    )
    wait_for("the adapter back on the new worker", lambda: ADAPTER in _loras(new_ip), timeout=120)

    # The adapter unloaded behind the operator's back: the worker now answers 500 to its
    # DELETE, as a restarted vLLM worker does; deleting the model must still finish.
    http_json("DELETE", f"http://{new_ip}:{SYSTEM_PORT}/v1/loras/{ADAPTER}")
    assert ADAPTER not in _loras(new_ip)
    serving.admin.delete(f"{models}/{ADAPTER}")

    wait_for("the model deleted (finalizer released)", lambda: _gone(serving, models), timeout=120)
    assert ADAPTER not in _loras(new_ip)


def test_the_same_graph_serves_with_etcd_discovery(
    serving: Serving, real_node: RealNodeCluster
) -> None:
    with _etcd(real_node.node.node_ip) as endpoint:
        serving.installed.helm(
            "upgrade", RELEASE, str(OPERATOR_CHART), f"--namespace={SYSTEM}", "--reuse-values",
            f"--set=etcdAddr={endpoint}",
        )  # fmt: skip

        def on_etcd() -> bool:
            [pod] = serving.pods("agg-worker") or [None]
            if pod is None:
                return False
            env = {e["name"]: e.get("value") for e in pod["spec"]["containers"][-1]["env"]}
            return env.get("DYN_DISCOVERY_BACKEND") == "etcd"

        wait_for("the worker rolled onto etcd discovery", on_etcd, timeout=CONVERGE)
        graph = serving.converged("agg")
        frontend = serving.frontend_url("agg")
        wait_until_answering(frontend)

        assert chat(frontend, "Through etcd?")
        assert graph["status"]["state"] == "successful"
        [pod] = serving.pods("agg-worker")
        env = {e["name"]: e.get("value") for e in pod["spec"]["containers"][-1]["env"]}
        assert env["ETCD_ENDPOINTS"] == endpoint


# -- helpers ----------------------------------------------------------------------------------


class _Load:
    """A client sending chat completions one after another, without pause, on a thread."""

    def __init__(self, frontend: str) -> None:
        self.frontend = frontend
        self.sent = 0
        self.failures: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=30)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sent += 1
            try:
                chat(self.frontend, f"load {self.sent}")
            except HttpError as error:
                self.failures.append(str(error)[:200])


def _watch_rollout(serving: Serving, generation: int) -> str:
    """Until the graph is successful at `generation`: a description of any moment it was
    successful while a worker pod of the old template was still running, else ''."""

    def done() -> dict[str, Any] | None:
        graph = serving.admin.get(GRAPH.object_path(serving.namespace, "agg"))
        if graph["metadata"]["generation"] != generation or not is_converged(graph):
            return None
        return graph

    deadline = time.monotonic() + CONVERGE
    while time.monotonic() < deadline:
        graph = done()
        if graph is not None:
            stale = [
                p["metadata"]["name"]
                for p in serving.pods("agg-worker")
                if "ROLLOUT" not in {e["name"] for e in p["spec"]["containers"][-1]["env"]}
            ]
            return f"old pods still running: {stale}" if stale else ""
        time.sleep(0.5)
    raise AssertionError("the rollout did not finish")


def _exactly(items: list[Any], count: int) -> list[Any] | None:
    return items if len(items) == count else None


def _loras(ip: str) -> list[str]:
    try:
        answer = http_json("GET", f"http://{ip}:{SYSTEM_PORT}/v1/loras")
    except HttpError:
        return []
    loras = answer.get("loras") if isinstance(answer, dict) else answer
    return [entry.get("name") or entry.get("lora_name") for entry in loras or ()]


def _ready_endpoints(serving: Serving, models: str) -> int:
    model = serving.admin.get(f"{models}/{ADAPTER}")
    return int((model.get("status") or {}).get("readyEndpoints") or 0)


def _gone(serving: Serving, models: str) -> bool:
    try:
        serving.admin.get(f"{models}/{ADAPTER}")
    except ApiError as error:
        return error.status == 404
    return False


def _dynamo_rss() -> dict[str, int]:
    """Resident memory (MiB) of each Dynamo process running on this host, by its module."""
    rss: dict[str, int] = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        words = [w.decode(errors="replace") for w in command]
        if "-m" not in words or words.index("-m") + 1 >= len(words):
            continue
        module = words[words.index("-m") + 1]
        if not module.startswith(("dynamo.", "dynamo_lora_engine")):
            continue
        kib = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS"))
        rss[module] = max(rss.get(module, 0), kib // 1024)
    return rss


class _etcd:
    """An etcd on the host's address (where the real node's pods reach it), stopped after."""

    def __init__(self, host: str) -> None:
        self.host = host
        self.process: subprocess.Popen[bytes] | None = None
        self.workdir = Path(tempfile.mkdtemp(prefix="dynamo-e2e-etcd-"))

    def __enter__(self) -> str:
        binaries = ensure_binaries(show_progress=False)
        client, peer = free_port(), free_port()
        endpoint = f"http://{self.host}:{client}"
        self.process = subprocess.Popen(
            [
                str(binaries.kube("etcd")),
                f"--data-dir={self.workdir / 'data'}",
                f"--listen-client-urls={endpoint}",
                f"--advertise-client-urls={endpoint}",
                f"--listen-peer-urls=http://127.0.0.1:{peer}",
            ],
            stdout=subprocess.DEVNULL,
            stderr=(self.workdir / "etcd.log").open("wb"),
        )
        wait_for("etcd serving", lambda: _answers(f"{endpoint}/health"), timeout=30)
        return endpoint

    def __exit__(self, *_: object) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        subprocess.run(["rm", "-rf", str(self.workdir)], check=False)


def _answers(url: str) -> bool:
    try:
        http_json("GET", url, timeout=2)
    except HttpError:
        return False
    return True
