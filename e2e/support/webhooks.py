"""Admission webhooks behind the test's apiserver: `dynamo-operator webhook-server` on
127.0.0.1, graphs only the webhook refuses, a URL-based ValidatingWebhookConfiguration for such a
server, asking the apiserver whether it denies.
"""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import kr8s
from kr8s.objects import APIObject, new_class

from e2e.localcluster import wait_for
from e2e.localcluster.processes import spawn
from webhooks.manifests import UrlTarget, build_validating_webhook_configuration

ValidatingWebhookConfiguration = new_class(
    "ValidatingWebhookConfiguration", "admissionregistration.k8s.io/v1", namespaced=False
)
DynamoGraphDeployment = new_class("DynamoGraphDeployment", "nvidia.com/v1alpha1", namespaced=True)
SERVER_STARTUP_TIMEOUT = 60.0


def start_webhook_server(
    port: int, cert_dir: Path, *extra_args: str, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """`dynamo-operator webhook-server` on 127.0.0.1:`port`, its certificates (and CA,
    `ca.crt`) in `cert_dir`, returned once it says it serves. Its output is appended to
    `cert_dir/webhook-server.log`, a file, so nothing has to drain a pipe while it runs; a
    restart in the same directory serves the same chain."""
    cert_dir.mkdir(parents=True, exist_ok=True)
    log = cert_dir / "webhook-server.log"
    started = log.stat().st_size if log.exists() else 0
    with log.open("ab") as output:
        # A harness stopped by a signal (a benchmark interrupted during its namespace
        # deletions) must not leave the CRDs' conversion webhook running.
        process = spawn(
            [
                sys.executable,
                "-m",
                "manager.app.cli",
                "webhook-server",
                "--host=127.0.0.1",
                f"--port={port}",
                f"--cert-dir={cert_dir}",
                *extra_args,
            ],
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + SERVER_STARTUP_TIMEOUT
    while b"serving https://" not in log.read_bytes()[started:]:
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"webhook-server did not serve: {log.read_text()[-2000:]}")
        time.sleep(0.2)
    return process


def graph(namespace: str, name: str = "llm") -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "backendFramework": "vllm",
            "services": {
                "Frontend": {"componentType": "frontend", "replicas": 1},
                "VllmWorker": {"componentType": "worker", "replicas": 1},
            },
        },
    }


def invalid_graph(namespace: str) -> dict[str, Any]:
    # Accepted by the CRD schema, refused by the validator: only the webhook can deny it.
    document = graph(namespace, name=f"bad-{uuid.uuid4().hex[:6]}")
    document["spec"]["services"]["Frontend"]["ingress"] = {"enabled": True}
    return document


def create_configuration(
    api: kr8s.Api, namespace: str, port: int, ca_pem: bytes | None
) -> APIObject:
    document = build_validating_webhook_configuration(
        UrlTarget(f"https://127.0.0.1:{port}"),
        name=f"dynamo-e2e-{namespace}",
        operator_namespace=namespace,
        ca_bundle_pem=ca_pem,
        namespace_selector={"matchLabels": {"kubernetes.io/metadata.name": namespace}},
    )
    configuration = ValidatingWebhookConfiguration(document, api=api)
    configuration.create()
    return configuration


def create_rejection(api: kr8s.Api, document: dict[str, Any]) -> str:
    """Create ``document`` and return the apiserver's refusal message ('' when it was stored)."""
    try:
        DynamoGraphDeployment(document, api=api).create()
    except kr8s.ServerError as error:
        return str(error)
    return ""


def wait_until_webhook_denies(api: kr8s.Api, namespace: str) -> None:
    """The apiserver picks up new configurations asynchronously; probe with invalid objects
    (each has its own name, so a probe stored before the webhook was active disturbs nothing)."""
    wait_for(
        "the webhook to deny an invalid DynamoGraphDeployment",
        lambda: "admission webhook" in create_rejection(api, invalid_graph(namespace)),
        timeout=30,
    )
