"""Graphs that serve: real Dynamo processes (ai-dynamo 1.6.1, CPU, the mocker engine) under the
operator installed by Helm on the real node.

The graph is shaped like upstream's mocker example and sets nothing the operator should set: the
Frontend has only an image, there is no etcd and no NATS, the probes are the defaults. It must be
`successful` only once its pods are Ready through those probes, list its model and answer a chat
completion through the frontend's Service, its worker published for Kubernetes discovery.
(Disaggregated, scaling, rollout under load, LoRA and etcd cases: see the issue's closing note.)
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from localcluster import rss_bytes

from e2e.dynamo_image import dynamo_image_tar  # noqa: F401 (fixture)
from e2e.dynamo_model import model_files
from e2e.dynamo_serving import (
    MODEL,
    aggregated_graph,
    chat,
    frontend_url,
    http_json,
    model_config_map,
    wait_until_answering,
)
from e2e.graphs import GRAPH
from e2e.helm_install import Installed, install
from e2e.operator_image import operator_image_tar  # noqa: F401 (fixture)
from e2e.real_node import RealNodeCluster, real_node_fixture  # noqa: F401 (fixture)

pytestmark = [pytest.mark.e2e, pytest.mark.local_control_plane]

WORKER_METADATA = "/apis/nvidia.com/v1alpha1/namespaces/{ns}/dynamoworkermetadatas"


@dataclass
class Serving:
    installed: Installed
    namespace: str
    applied_at: float

    @property
    def admin(self) -> Any:
        return self.installed.admin

    def converged(self, graph: str) -> dict[str, Any]:
        return self.installed.converged(self.namespace, graph)

    def pods(self, component: str) -> list[dict[str, Any]]:
        selector = f"nvidia.com/selector={component}"
        path = f"/api/v1/namespaces/{self.namespace}/pods?labelSelector={selector}"
        pods: list[dict[str, Any]] = self.admin.get(path)["items"]
        return [p for p in pods if not p["metadata"].get("deletionTimestamp")]


@pytest.fixture(scope="module")
def serving(
    real_node: RealNodeCluster,
    operator_image_tar: Path,  # noqa: F811 (fixture)
    dynamo_image_tar: Path,  # noqa: F811 (fixture)
) -> Serving:
    real_node.import_image(dynamo_image_tar)
    installed = install(real_node, operator_image_tar)
    namespace = real_node.create_namespace("serve")
    installed.admin.create(
        f"/api/v1/namespaces/{namespace}/configmaps", model_config_map(model_files())
    )
    installed.admin.create(GRAPH.collection_path(namespace), aggregated_graph("agg"))
    return Serving(installed, namespace, applied_at=time.monotonic())


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
    frontend = frontend_url(serving.admin, serving.namespace, "agg")
    answered = wait_until_answering(frontend)
    first_answer = time.monotonic() - serving.applied_at
    models = http_json("GET", f"{frontend}/v1/models")
    assert [m["id"] for m in models["data"]] == [MODEL]
    assert chat(frontend, "What is Dynamo?")
    # The worker published itself for Kubernetes discovery, owned by its pod.
    [worker_pod] = serving.pods("agg-worker")
    published = serving.admin.get(WORKER_METADATA.format(ns=serving.namespace))["items"]
    [metadata] = [m for m in published if m["metadata"]["name"] == worker_pod["metadata"]["name"]]
    assert metadata["metadata"]["ownerReferences"][0]["uid"] == worker_pod["metadata"]["uid"]
    record_property("apply_to_first_answer_seconds", round(first_answer, 1))
    record_property("successful_to_first_answer_seconds", round(answered, 1))
    rss = _dynamo_rss()
    record_property("dynamo_rss_mib", rss)
    print(f"\napply to first answer {first_answer:.1f}s; RSS (MiB) {rss}")


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
