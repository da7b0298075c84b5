"""Real Dynamo under the operator: graphs shaped like upstream's mocker examples, and a client.

The graphs run ``localhost/dynamo-cpu:dev`` (``e2e.dynamo_image``) on the real node: a Frontend
given only its image (the operator supplies ``python3 -m dynamo.frontend``) and mocker or LoRA
engine workers reading the tiny model of ``e2e.dynamo_model`` from a ConfigMap. Nothing else is
configured but what Dynamo's graceful-shutdown guide asks of users: frontends with request
migration on (``MIGRATION_LIMIT``). Discovery, ports, probes and env are the operator's defaults.

``Client`` talks to a graph's frontend through its Service's ClusterIP (kube-proxy routes the
host's connections as a Pod's) and to workers' system ports by Pod IP.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from typing import Any

from dynamo_operator.builders import FRONTEND_READINESS_COMMAND
from dynamo_operator.constants import Ports
from e2e.localcluster import AdminClient
from e2e.support.dynamo_image import IMAGE, engine_command, mocker_command
from e2e.support.kinds import GRAPH, GRAPH_BETA
from e2e.support.metrics_scrape import parse, total
from e2e.support.real_node import RealNodeCluster

MODEL = "tiny"
MODEL_DIR = "/models/tiny"
MODEL_CONFIG_MAP = "tiny-model"
HF_TOKEN_SECRET = "hf-token-secret"
MIGRATION_LIMIT = "3"
"""``DYN_MIGRATION_LIMIT`` of every test frontend. Dynamo's frontend (1.6.1) cancels a request it
has just routed to a worker when that worker leaves discovery in the same instant (its log: "route
request failed ... worker_disconnected", answered 503; seen at the old worker's deletion during a
rollout: 1 request in 13,234 over 33 rollouts). Migration, off by default and a user's choice,
retries such a request on another worker; the operator cannot prevent it: the worker must leave
discovery."""
GENERATE_REQUESTS = "dynamo_component_requests_total"
"""A worker's requests by endpoint, on its system port's /metrics (label ``dynamo_endpoint``)."""


def dynamo_graph(
    name: str,
    workers: Mapping[str, Mapping[str, Any]],
    *,
    model_ref: bool = False,
    frontend_ready_every: int | None = None,
) -> dict[str, Any]:
    """A graph of a Frontend (image only) and ``workers`` (service name -> ``componentType``,
    ``args`` after the launch command, optional ``replicas``, ``env`` and ``command``).

    ``frontend_ready_every`` replaces the frontend's default readiness probe timing (a first
    check after 60 s, then every 60 s) with one every that many seconds, as a user may: tests
    that restart a frontend need not wait a minute for it."""
    placement = RealNodeCluster.pod_placement()
    model_volume = {"name": "model", "configMap": {"name": MODEL_CONFIG_MAP}}
    services: dict[str, Any] = {
        "Frontend": {
            "componentType": "frontend",
            "replicas": 1,
            "envs": [{"name": "DYN_MIGRATION_LIMIT", "value": MIGRATION_LIMIT}],
            "extraPodSpec": {
                **placement,
                "terminationGracePeriodSeconds": 10,
                "mainContainer": {"image": IMAGE, "imagePullPolicy": "Never"},
            },
        }
    }
    if frontend_ready_every is not None:
        services["Frontend"]["readinessProbe"] = {
            "exec": {"command": ["/bin/sh", "-c", FRONTEND_READINESS_COMMAND]},
            "periodSeconds": frontend_ready_every,
            "timeoutSeconds": 5,
            "failureThreshold": 3,
        }
    for service, spec in workers.items():
        command = spec.get("command") or mocker_command(MODEL_DIR, MODEL)
        main: dict[str, Any] = {
            "image": IMAGE,
            "imagePullPolicy": "Never",
            "command": [*command, *spec.get("args", ())],
            "volumeMounts": [{"name": "model", "mountPath": MODEL_DIR, "readOnly": True}],
        }
        entry: dict[str, Any] = {
            "componentType": spec.get("componentType", "worker"),
            "replicas": spec.get("replicas", 1),
            "extraPodSpec": {
                **placement,
                "terminationGracePeriodSeconds": 10,
                "volumes": [model_volume],
                "mainContainer": main,
            },
        }
        if spec.get("env"):
            entry["envs"] = [{"name": k, "value": v} for k, v in spec["env"].items()]
        if model_ref:
            entry["modelRef"] = {"name": MODEL}
        services[service] = entry
    return {
        "apiVersion": GRAPH.api_version,
        "kind": GRAPH.kind,
        "metadata": {"name": name},
        "spec": {"services": services},
    }


def aggregated_graph(name: str, *, frontend_ready_every: int | None = None) -> dict[str, Any]:
    return dynamo_graph(name, {"Worker": {}}, frontend_ready_every=frontend_ready_every)


def mocker_disagg_v1beta1(name: str, *, frontend_ready_every: int | None = None) -> dict[str, Any]:
    """Upstream's v1beta1 mocker disagg example (``examples/backends/mocker/deploy/v1beta1/
    disagg.yaml``: components ``Frontend``, ``decode`` and ``prefill``, each a ``main``
    container, the workers ``python3 -m dynamo.mocker`` in ``/workspace`` with ``envFrom`` the
    ``hf-token-secret``) with only the image and the model swapped for ours, plus what this
    cluster needs of every pod: the real node's placement, our image never pulled, the model's
    ConfigMap mounted, a short grace period (and the frontend's readiness timing, as above)."""
    placement = RealNodeCluster.pod_placement()
    frontend: dict[str, Any] = {
        "name": "main",
        "image": IMAGE,
        "imagePullPolicy": "Never",
        "env": [{"name": "DYN_MIGRATION_LIMIT", "value": MIGRATION_LIMIT}],
    }
    if frontend_ready_every is not None:
        frontend["readinessProbe"] = {
            "exec": {"command": ["/bin/sh", "-c", FRONTEND_READINESS_COMMAND]},
            "periodSeconds": frontend_ready_every,
            "timeoutSeconds": 5,
            "failureThreshold": 3,
        }

    def worker(mode: str) -> dict[str, Any]:
        command = mocker_command(MODEL_DIR, MODEL)
        main = {
            "name": "main",
            "image": IMAGE,
            "imagePullPolicy": "Never",
            "command": command[:3],
            "args": [*command[3:], "--speedup-ratio", "1.0", "--disaggregation-mode", mode],
            "envFrom": [{"secretRef": {"name": HF_TOKEN_SECRET}}],
            "workingDir": "/workspace",
            "volumeMounts": [{"name": "model", "mountPath": MODEL_DIR, "readOnly": True}],
        }
        spec = {
            **placement,
            "terminationGracePeriodSeconds": 10,
            "volumes": [{"name": "model", "configMap": {"name": MODEL_CONFIG_MAP}}],
            "containers": [main],
        }
        return {"name": mode, "podTemplate": {"spec": spec}, "replicas": 1, "type": mode}

    frontend_spec = {**placement, "terminationGracePeriodSeconds": 10, "containers": [frontend]}
    return {
        "apiVersion": GRAPH_BETA.api_version,
        "kind": GRAPH_BETA.kind,
        "metadata": {"name": name},
        "spec": {
            "components": [
                {
                    "name": "Frontend",
                    "podTemplate": {"spec": frontend_spec},
                    "replicas": 1,
                    "type": "frontend",
                },
                worker("decode"),
                worker("prefill"),
            ]
        },
    }


def hf_token_secret() -> dict[str, Any]:
    """The Secret upstream's example reads its Hugging Face token from (the mocker needs none)."""
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": HF_TOKEN_SECRET},
        "stringData": {"HF_TOKEN": "not-needed-by-the-mocker"},
    }


def lora_graph(name: str) -> dict[str, Any]:
    """One LoRA-capable test engine (Dynamo's real ``/v1/loras`` routes) serving the base model."""
    worker = {"command": engine_command(MODEL_DIR, MODEL), "env": {"DYN_LORA_ENABLED": "true"}}
    return dynamo_graph(name, {"Worker": worker}, model_ref=True)


def model_config_map(files: Mapping[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": MODEL_CONFIG_MAP},
        "data": dict(files),
    }


def frontend_url(admin: AdminClient, namespace: str, graph: str) -> str:
    """The graph's frontend through its Service's ClusterIP (named after the Frontend's DCD)."""
    service = admin.get(f"/api/v1/namespaces/{namespace}/services/{graph}-frontend")
    return f"http://{service['spec']['clusterIP']}:{Ports.FRONTEND_HTTP}"


class HttpError(Exception):
    """A request answered with an error status, or not answered at all."""


def http_json(
    method: str, url: str, body: Mapping[str, Any] | None = None, *, timeout: float = 10.0
) -> Any:
    text = http_text(method, url, body, timeout=timeout)
    return json.loads(text) if text else None


def http_text(
    method: str, url: str, body: Mapping[str, Any] | None = None, *, timeout: float = 10.0
) -> str:
    """The answer's body (HttpError for an error status, or when nothing answers)."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return str(response.read().decode())
    except urllib.error.HTTPError as error:
        raise HttpError(f"{method} {url}: {error.code} {error.read()[:300]!r}") from error
    except (OSError, urllib.error.URLError) as error:
        raise HttpError(f"{method} {url}: {error}") from error


def chat(base_url: str, prompt: str = "Hello there", *, model: str = MODEL) -> str:
    """One chat completion through a frontend: the answer's text (HttpError when refused)."""
    answer = http_json(
        "POST",
        f"{base_url}/v1/chat/completions",
        {"model": model, "messages": [{"role": "user", "content": prompt}], "max_tokens": 8},
    )
    content = answer["choices"][0]["message"].get("content")
    if not content:
        raise HttpError(f"an answer with no text: {answer}")
    return str(content)


def generate_requests(pod_ip: str) -> float:
    """Requests a worker's ``generate`` endpoint has served, from its system port's metrics."""
    text = http_text("GET", f"http://{pod_ip}:{Ports.SYSTEM}/metrics", timeout=5.0)
    return total(parse(text), GENERATE_REQUESTS, dynamo_endpoint="generate")


def wait_until_answering(base_url: str, timeout: float = 120.0) -> float:
    """Seconds until the frontend first answers a chat completion (AssertionError on timeout)."""
    started = time.monotonic()
    last = ""
    while time.monotonic() - started < timeout:
        try:
            chat(base_url)
            return time.monotonic() - started
        except HttpError as error:
            last = str(error)
        time.sleep(0.5)
    raise AssertionError(f"no chat completion through {base_url} within {timeout:.0f}s: {last}")
