"""Graphs that serve: real Dynamo processes (ai-dynamo 1.6.1, CPU, the mocker engine and the LoRA
test engine) under the operator installed by Helm on the real node.

The graphs are shaped like upstream's mocker examples and set nothing the operator should set:
the Frontend has only an image, there is no etcd and no NATS, the worker probes are the defaults
(the aggregated graph's frontend keeps the default readiness probe too: a first check after a
minute). They are applied together at the start and the tests then run in order on them: the
aggregated graph answering through its frontend's Service, the disaggregated one (upstream's
v1beta1 example, applied at v1beta1), workers scaled
1 -> 3 -> 1, an env change rolled out under load, a LoRA loaded, restored after a worker restart
and unloaded through Dynamo's real ``/v1/loras`` routes, and last the operator moved to etcd
discovery (``--etcdAddr``, by ``helm upgrade``) with an etcd the pods reach.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from dynamo_operator.constants import DISCOVERY_ACCOUNT_NAME, Ports
from e2e.localcluster import condition, ensure_binaries, is_condition_true, rss_bytes, wait_for
from e2e.localcluster.controlplane.audit import read_audit_events, verbs_needed
from e2e.localcluster.ports import free_port
from e2e.support import kinds
from e2e.support.chart import OPERATOR_CHART
from e2e.support.dynamo_model import model_files
from e2e.support.dynamo_serving import (
    MODEL,
    HttpError,
    aggregated_graph,
    chat,
    frontend_url,
    generate_requests,
    hf_token_secret,
    http_json,
    lora_graph,
    mocker_disagg_v1beta1,
    model_config_map,
    wait_until_answering,
)
from e2e.support.graphs import is_converged
from e2e.support.helm_install import (
    CONVERGE,
    RELEASE,
    SYSTEM,
    Installed,
    install,
)
from e2e.support.real_node import RealNodeCluster, running_real_node

pytestmark = [pytest.mark.e2e, pytest.mark.local_control_plane]

ADAPTER = "tiny-adapter"
DISCOVERY_CLUSTER_ROLE = f"{RELEASE}-k8s-service-discovery"
"""The chart's ClusterRole every namespace's discovery account is bound to."""


@dataclass
class Serving:
    installed: Installed
    namespace: str
    applied_at: dict[str, float] = field(default_factory=dict)

    @property
    def admin(self) -> Any:
        return self.installed.admin

    def converged(self, graph: str) -> dict[str, Any]:
        return self.installed.converged(self.namespace, graph)

    def frontend(self, graph: str) -> str:
        return frontend_url(self.admin, self.namespace, graph)

    def pods(self, component: str) -> list[dict[str, Any]]:
        """The component's pods, those being deleted left out."""
        selector = f"nvidia.com/selector={component}"
        path = f"/api/v1/namespaces/{self.namespace}/pods?labelSelector={selector}"
        pods: list[dict[str, Any]] = self.admin.get(path)["items"]
        return [p for p in pods if not p["metadata"].get("deletionTimestamp")]

    def pod_path(self, pod: dict[str, Any]) -> str:
        return f"/api/v1/namespaces/{self.namespace}/pods/{pod['metadata']['name']}"

    def ready_pod_ips(self, component: str) -> list[str]:
        return sorted(
            p["status"]["podIP"] for p in self.pods(component) if is_condition_true(p, "Ready")
        )

    def patch_graph(self, graph: str, patch: dict[str, Any]) -> dict[str, Any]:
        result: dict[str, Any] = self.admin.patch(
            kinds.GRAPH.object_path(self.namespace, graph), patch
        )
        return result

    def worker_metadata(self, component: str) -> list[str]:
        """Names of the DynamoWorkerMetadata published by the component's pods (one per pod)."""
        published = self.admin.get(kinds.WORKER_METADATA.collection_path(self.namespace))["items"]
        return [
            m["metadata"]["name"]
            for m in published
            if m["metadata"]["name"].startswith(f"{component}-")
        ]


@pytest.fixture(scope="module")
def real_node() -> Iterator[RealNodeCluster]:
    """The real node, its API server logging ServiceAccounts' requests: what the graphs' pods
    ask of the API server is checked against the discovery Role at the end."""
    with running_real_node(audit=True) as running:
        yield running


@pytest.fixture(scope="module")
def serving(
    real_node: RealNodeCluster,
    operator_image_tar: Path,
    dynamo_image_tar: Path,
) -> Serving:
    real_node.import_image(dynamo_image_tar)
    installed = install(real_node, operator_image_tar)
    namespace = real_node.create_namespace("serve")
    serving = Serving(installed, namespace)
    installed.admin.create(
        f"/api/v1/namespaces/{namespace}/configmaps", model_config_map(model_files())
    )
    installed.admin.create(f"/api/v1/namespaces/{namespace}/secrets", hf_token_secret())
    graphs = (
        # Frontends ready-checked every 2 s (with the default's command), not first after 60 s:
        # the tests of these two need not wait a minute. The LoRA graph, tested later, keeps the
        # default probes: a real frontend becomes Ready through them. The disaggregated graph is
        # upstream's v1beta1 example, applied at v1beta1 as today's docs have users do.
        aggregated_graph("agg", frontend_ready_every=2),
        mocker_disagg_v1beta1("disagg", frontend_ready_every=2),
        lora_graph("lora"),
    )
    for graph in graphs:
        kind = kinds.GRAPH_BETA if graph["apiVersion"].endswith("v1beta1") else kinds.GRAPH
        installed.admin.create(kind.collection_path(namespace), graph)
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
    frontend = serving.frontend("agg")
    answered = wait_until_answering(frontend)
    first_answer = time.monotonic() - serving.applied_at["agg"]
    models = http_json("GET", f"{frontend}/v1/models")
    assert [m["id"] for m in models["data"]] == [MODEL]
    assert chat(frontend, "What is Dynamo?")
    # The worker published itself for Kubernetes discovery, owned by its pod.
    [worker_pod] = serving.pods("agg-worker")
    published = serving.admin.get(kinds.WORKER_METADATA.collection_path(serving.namespace))["items"]
    [metadata] = [m for m in published if m["metadata"]["name"] == worker_pod["metadata"]["name"]]
    assert metadata["metadata"]["ownerReferences"][0]["uid"] == worker_pod["metadata"]["uid"]
    record_property("apply_to_first_answer_seconds", round(first_answer, 1))
    record_property("successful_to_first_answer_seconds", round(answered, 1))
    rss = _dynamo_rss()
    record_property("dynamo_rss_mib", rss)
    print(f"\napply to first answer {first_answer:.1f}s; RSS (MiB) {rss}")


def test_a_disaggregated_graph_answers_through_prefill_and_decode(serving: Serving) -> None:
    serving.converged("disagg")
    frontend = serving.frontend("disagg")
    wait_until_answering(frontend)
    [prefill] = serving.ready_pod_ips("disagg-prefill")
    [decode] = serving.ready_pod_ips("disagg-decode")
    before = {"prefill": generate_requests(prefill), "decode": generate_requests(decode)}

    answers = [chat(frontend, f"question {index}") for index in range(5)]

    assert all(answers)
    served = {
        "prefill": generate_requests(prefill) - before["prefill"],
        "decode": generate_requests(decode) - before["decode"],
    }
    assert served == {"prefill": 5, "decode": 5}


def test_workers_scaled_up_and_down_are_routed_to_while_they_live(serving: Serving) -> None:
    frontend = serving.frontend("agg")
    serving.patch_graph("agg", {"spec": {"services": {"Worker": {"replicas": 3}}}})
    serving.converged("agg")
    ips = wait_for("three ready workers", lambda: _exactly(serving.ready_pod_ips("agg-worker"), 3))
    before = {ip: generate_requests(ip) for ip in ips}

    def every_worker_served() -> bool:
        for index in range(6):
            chat(frontend, f"spread {index}")
        return all(generate_requests(ip) > before[ip] for ip in ips)

    wait_for("the frontend routing to each of three workers", every_worker_served, timeout=120)

    serving.patch_graph("agg", {"spec": {"services": {"Worker": {"replicas": 1}}}})
    serving.converged("agg")
    [survivor] = wait_for("one worker left", lambda: _exactly(serving.pods("agg-worker"), 1))
    # The removed workers' metadata goes with their pods (owned by them).
    wait_for(
        "the removed workers' metadata collected",
        lambda: serving.worker_metadata("agg-worker") == [survivor["metadata"]["name"]],
        timeout=120,
    )
    ip = survivor["status"]["podIP"]
    start = generate_requests(ip)

    for index in range(10):
        chat(frontend, f"after scale-down {index}")

    assert generate_requests(ip) - start == 10


def test_an_env_change_rolls_the_workers_out_under_load(
    serving: Serving, record_property: Any
) -> None:
    frontend = serving.frontend("agg")
    wait_until_answering(frontend)
    [old_pod] = serving.pods("agg-worker")

    with _Load(frontend) as load:
        time.sleep(2)
        patched = serving.patch_graph(
            "agg",
            {"spec": {"services": {"Worker": {"envs": [{"name": "ROLLOUT", "value": "2"}]}}}},
        )
        premature = _watch_rollout(serving, "agg", patched["metadata"]["generation"])
        # Requests keep going until the old worker's pod is gone, not only marked for deletion.
        wait_for(
            "the old worker's pod gone",
            lambda: serving.installed.get(serving.pod_path(old_pod)) is None,
            timeout=CONVERGE,
        )
        time.sleep(2)

    record_property("rollout_requests_sent", load.sent)
    record_property("rollout_requests_failed", len(load.failures))
    print(
        f"\nrollout under load: {load.sent} sent, {len(load.failures)} failed {load.failures[:3]}"
    )
    assert not premature, f"the graph was successful before its rollout ended: {premature}"
    [new_pod] = serving.pods("agg-worker")
    assert new_pod["metadata"]["uid"] != old_pod["metadata"]["uid"]
    assert load.sent > 20
    assert not load.failures, _rollout_failures(serving, load, new_pod)


def test_a_lora_is_loaded_restored_after_a_worker_restart_and_unloaded(serving: Serving) -> None:
    serving.converged("lora")
    models = kinds.MODEL.collection_path(serving.namespace)
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
    frontend = serving.frontend("lora")
    wait_for("the adapter served", lambda: ADAPTER in _served_models(frontend), timeout=60)
    assert chat(frontend, "Adapted?", model=ADAPTER)

    [pod] = serving.pods("lora-worker")
    serving.admin.delete(serving.pod_path(pod))
    new_ip = wait_for(
        "a new worker pod ready",
        lambda: next(iter(set(serving.ready_pod_ips("lora-worker")) - {ip}), None),
        timeout=CONVERGE,
    )
    wait_for("the adapter back on the new worker", lambda: ADAPTER in _loras(new_ip), timeout=120)

    # The adapter unloaded behind the operator's back: the worker now answers 500 to its
    # DELETE, as a restarted vLLM worker does; deleting the model must still finish.
    http_json("DELETE", f"http://{new_ip}:{Ports.SYSTEM}/v1/loras/{ADAPTER}")
    assert ADAPTER not in _loras(new_ip)
    serving.admin.delete(f"{models}/{ADAPTER}")

    wait_for(
        "the model deleted (finalizer released)",
        lambda: serving.installed.get(f"{models}/{ADAPTER}") is None,
        timeout=120,
    )
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
            pods = [*serving.pods("disagg-prefill"), *serving.pods("disagg-decode")]
            return len(pods) == 2 and all(  # etcd discovery: the runtime's default, no env var
                _env(pod).get("ETCD_ENDPOINTS") == endpoint
                and "DYN_DISCOVERY_BACKEND" not in _env(pod)
                and is_condition_true(pod, "Ready")
                for pod in pods
            )

        wait_for("the workers rolled onto etcd discovery", on_etcd, timeout=CONVERGE)
        graph = serving.converged("disagg")
        frontend = serving.frontend("disagg")
        wait_until_answering(frontend)

        assert chat(frontend, "Through etcd?")
        assert graph["status"]["state"] == "successful"
        for component in ("disagg-frontend", "disagg-prefill", "disagg-decode"):
            [pod] = serving.pods(component)
            assert _env(pod)["ETCD_ENDPOINTS"] == endpoint, component


def test_the_discovery_cluster_role_grants_exactly_what_the_pods_used(
    serving: Serving, real_node: RealNodeCluster
) -> None:
    """Every request the graphs' pods made as their namespace's discovery account (through every
    test above: starts, scaling, rollouts, restarts, stops) was allowed, and every verb the
    chart's discovery ClusterRole (the account is bound to it) grants was used by one of
    them."""
    account = f"system:serviceaccount:{serving.namespace}:{DISCOVERY_ACCOUNT_NAME}"
    requests = {
        event["auditID"]: event
        for event in read_audit_events(real_node.cluster.audit_log)
        if event["user"]["username"] == account and event.get("objectRef")
    }
    refused = sorted(
        {
            f"{e['verb']} {e['requestURI'].split('?')[0]}"
            for e in requests.values()
            if (e.get("responseStatus") or {}).get("code") == 403
        }
    )
    used = {
        (verb, e["objectRef"].get("apiGroup", ""), e["objectRef"]["resource"])
        for e in requests.values()
        for verb in verbs_needed(e["verb"], (e.get("responseStatus") or {}).get("code", 0))
    }
    rbac = "/apis/rbac.authorization.k8s.io/v1"
    bindings = serving.admin.get(f"{rbac}/namespaces/{serving.namespace}/rolebindings")["items"]
    role_refs = {
        (b["roleRef"]["kind"], b["roleRef"]["name"])
        for b in bindings
        if b["metadata"]["name"] == f"{DISCOVERY_ACCOUNT_NAME}-binding"
    }
    # Installed cluster-wide by the chart: the namespace's account is bound to its ClusterRole.
    assert role_refs == {("ClusterRole", DISCOVERY_CLUSTER_ROLE)}, role_refs
    [(_, cluster_role)] = role_refs
    role = serving.admin.get(f"{rbac}/clusterroles/{cluster_role}")
    roles = serving.admin.get(f"{rbac}/namespaces/{serving.namespace}/roles")["items"]
    assert not [r for r in roles if DISCOVERY_ACCOUNT_NAME in r["metadata"]["name"]]
    granted = {
        (verb, group, resource)
        for rule in role["rules"]
        for verb in rule["verbs"]
        for group in rule["apiGroups"]
        for resource in rule["resources"]
    }

    assert requests, "no request made as a discovery account in the audit log"
    assert not refused, f"the discovery ClusterRole grants too little: {refused}"
    assert used == granted, f"used but not granted: {used - granted}; unused: {granted - used}"


# -- helpers ----------------------------------------------------------------------------------


def _rollout_failures(serving: Serving, load: _Load, new_pod: dict[str, Any]) -> str:
    """What failed, when (from the new worker's Ready: near 0 s is the frontend not yet routing
    to it; near the Deployment's minReadySeconds is the old worker going away), and what the
    frontend logged above INFO: the next failure says which side of the rollout it was on."""
    ready = condition(new_pod, "Ready")
    ready_at = datetime.fromisoformat(ready["lastTransitionTime"]).timestamp()
    failed = [f"{at - ready_at:+.1f}s {message}" for at, message in load.failures[:5]]
    [frontend] = serving.pods("agg-frontend")
    log = serving.installed.node.pod_logs(serving.namespace, frontend["metadata"]["name"])
    noted = [
        line for line in _ANSI.sub("", log).splitlines() if " WARN " in line or " ERROR " in line
    ]
    return (
        f"{len(load.failures)} of {load.sent} failed (time from the new worker's Ready): {failed}"
        f"; the frontend's warnings and errors: {noted[-15:]}"
    )


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


class _Load:
    """A client sending chat completions one after another, without pause, on a thread, for as
    long as the ``with`` block lasts."""

    def __init__(self, frontend: str) -> None:
        self.frontend = frontend
        self.sent = 0
        self.failures: list[tuple[float, str]] = []
        """When each failed request was sent (wall clock, to compare with pods' times), and why."""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> _Load:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(timeout=30)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sent += 1
            sent_at = time.time()
            try:
                chat(self.frontend, f"load {self.sent}")
            except HttpError as error:
                self.failures.append((sent_at, str(error)[:200]))


def _watch_rollout(serving: Serving, graph: str, generation: int) -> str:
    """Until the graph is successful at ``generation``: a description of any moment it was
    successful while a worker pod of the old template was still running, else ''."""
    deadline = time.monotonic() + CONVERGE
    while time.monotonic() < deadline:
        current = serving.admin.get(kinds.GRAPH.object_path(serving.namespace, graph))
        if current["metadata"]["generation"] == generation and is_converged(current):
            stale = [
                p["metadata"]["name"]
                for p in serving.pods(f"{graph}-worker")
                if "ROLLOUT" not in _env(p)
            ]
            return f"old pods still running: {stale}" if stale else ""
        time.sleep(0.5)
    raise AssertionError(f"the rollout of {graph} did not finish within {CONVERGE:.0f}s")


def _env(pod: dict[str, Any]) -> dict[str, str | None]:
    [main] = [c for c in pod["spec"]["containers"] if c["name"] == "main"]
    return {e["name"]: e.get("value") for e in main.get("env") or ()}


def _exactly(items: list[Any], count: int) -> list[Any] | None:
    return items if len(items) == count else None


def _loras(ip: str) -> list[str]:
    """The adapters a worker holds, from its system port (none when it does not answer)."""
    try:
        answer = http_json("GET", f"http://{ip}:{Ports.SYSTEM}/v1/loras")
    except HttpError:
        return []
    return list(answer.get("loras") or ())


def _served_models(frontend: str) -> list[str]:
    try:
        return [m["id"] for m in http_json("GET", f"{frontend}/v1/models")["data"]]
    except HttpError:
        return []


def _ready_endpoints(serving: Serving, models: str) -> int:
    model = serving.admin.get(f"{models}/{ADAPTER}")
    return int((model.get("status") or {}).get("readyEndpoints") or 0)


def _dynamo_rss() -> dict[str, int]:
    """Resident memory (MiB) of each Dynamo process running on this host, by its module."""
    rss: dict[str, int] = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            words = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        if "-m" not in words[:-1]:
            continue
        module = words[words.index("-m") + 1]
        if module.startswith(("dynamo.", "dynamo_lora_engine")):
            rss[module] = max(rss.get(module, 0), rss_bytes(int(pid)) // 2**20)
    return rss


@contextmanager
def _etcd(host: str) -> Iterator[str]:
    """An etcd on the host's address, where the real node's pods reach it; stopped after."""
    binaries = ensure_binaries(show_progress=False)
    endpoint = f"http://{host}:{free_port()}"
    with tempfile.TemporaryDirectory(prefix="dynamo-e2e-etcd-") as workdir:
        with open(Path(workdir) / "etcd.log", "wb") as log:
            process = subprocess.Popen(
                [
                    str(binaries.kube("etcd")),
                    f"--data-dir={workdir}/data",
                    f"--listen-client-urls={endpoint}",
                    f"--advertise-client-urls={endpoint}",
                    f"--listen-peer-urls=http://127.0.0.1:{free_port()}",
                ],
                stdout=subprocess.DEVNULL,
                stderr=log,
            )
        try:
            wait_for("etcd serving", lambda: _answers(f"{endpoint}/health"), timeout=30)
            yield endpoint
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _answers(url: str) -> bool:
    try:
        http_json("GET", url, timeout=2)
    except HttpError:
        return False
    return True
