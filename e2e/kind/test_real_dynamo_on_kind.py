"""Real Dynamo (ai-dynamo 1.6.1 on CPU, the mocker engine) under the Helm-installed operator on
the kind node: upstream's v1beta1 disaggregated mocker example (image and model swapped for ours),
applied with `kubectl apply` at v1beta1, converges, reads back at both versions, and a chat
completion is answered through its frontend's Service (reached by `kubectl port-forward`)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from e2e.kind.kubectl import get_json, kubectl, port_forward
from e2e.localcluster import wait_for
from e2e.support.dynamo_model import model_files
from e2e.support.dynamo_serving import (
    chat,
    hf_token_secret,
    mocker_disagg_v1beta1,
    model_config_map,
    wait_until_answering,
)
from e2e.support.graphs import is_converged
from e2e.support.helm_install import CONVERGE

pytestmark = [pytest.mark.e2e, pytest.mark.kind]

GRAPH = "disagg"


def on_any_node(graph: dict[str, Any]) -> dict[str, Any]:
    """The graph without the real node's placement (kind's one node takes every Pod)."""
    for component in graph["spec"]["components"]:
        component["podTemplate"]["spec"].pop("nodeSelector", None)
        component["podTemplate"]["spec"].pop("tolerations", None)
    return graph


@pytest.fixture(scope="module")
def serving() -> Iterator[str]:
    namespace = f"kind-dynamo-{uuid.uuid4().hex[:6]}"
    kubectl("create", "namespace", namespace)
    try:
        kubectl(
            "apply", "-n", namespace, "-f", "-", stdin=json.dumps(model_config_map(model_files()))
        )
        kubectl("apply", "-n", namespace, "-f", "-", stdin=json.dumps(hf_token_secret()))
        # A frontend readiness check every 5 s instead of the default first one after 60 s.
        graph = on_any_node(mocker_disagg_v1beta1(GRAPH, frontend_ready_every=5))
        kubectl("apply", "-n", namespace, "-f", "-", stdin=json.dumps(graph))
        yield namespace
    finally:
        kubectl("delete", "namespace", namespace, "--wait=false", check=False)


def test_mocker_graph_converges(serving: str) -> None:
    def converged() -> dict[str, Any] | None:
        graph = get_json("dynamographdeployment", GRAPH, "-n", serving)
        return graph if is_converged(graph) else None

    graph = wait_for(f"DGD {serving}/{GRAPH} successful", converged, timeout=CONVERGE)
    # kubectl reads the preferred version, v1beta1, through the operator's conversion webhook.
    names = [component["name"] for component in graph["spec"]["components"]]
    assert names == ["Frontend", "decode", "prefill"]
    stored = get_json("dynamographdeployments.v1alpha1.nvidia.com", GRAPH, "-n", serving)
    assert stored["spec"]["services"]["prefill"]["subComponentType"] == "prefill"
    pods = get_json("pods", "-n", serving)["items"]
    assert {p["spec"]["containers"][0]["image"] for p in pods} == {"localhost/dynamo-cpu:dev"}
    assert all(p["status"]["phase"] == "Running" for p in pods)


def test_chat_completion_through_the_frontend_service(serving: str) -> None:
    with port_forward(serving, f"svc/{GRAPH}-frontend", 8000) as port:
        url = f"http://127.0.0.1:{port}"
        wait_until_answering(url, timeout=CONVERGE)
        assert chat(url, "Hello from kind")
