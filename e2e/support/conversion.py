"""The conversion webhook of a test cluster: `dynamo-operator webhook-server` on 127.0.0.1 with
`--configure-crd-conversion`, as a user running the operator out of cluster would serve it.

The CRDs of DynamoGraphDeployment, DynamoComponentDeployment and the scaling adapter are served at
v1alpha1 and v1beta1; `kubectl get dgd`, the namespace controller and the garbage collector read
them at the preferred version, v1beta1, so a cluster with those CRDs needs the webhook up, as a
real cluster has the operator's. The local control plane gets one per session, beside its CRDs;
a cluster the API server of which cannot reach 127.0.0.1 (kind) gets one as a Deployment. One
writer per cluster: an operator run with webhooks beside it must not manage the CRDs' conversion
(`--manage-crd-conversion=false`), or the two re-point the CRDs at each other.
"""

from __future__ import annotations

import contextlib
import functools
import os
import subprocess
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import kr8s
from kr8s.objects import Deployment, Namespace, object_from_spec

from e2e.localcluster import wait_for
from e2e.localcluster.ports import free_port
from e2e.support.crds import CustomResourceDefinition, install_crds
from e2e.support.webhooks import start_webhook_server
from webhooks import CertificatePolicy, ConversionTarget, conversion_patch, convertible_crd_names
from webhooks.certificates import plan_certificates


class ConversionServer:
    """A running conversion webhook; `stop()` and `start()` again serve the same chain."""

    def __init__(self, kubeconfig: Path, directory: Path) -> None:
        self.kubeconfig = kubeconfig
        self.directory = directory
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}/convert"

    def start(self, api: kr8s.Api) -> None:
        env = {**os.environ, "KUBECONFIG": str(self.kubeconfig)}
        self.process = start_webhook_server(
            self.port, self.directory, "--configure-crd-conversion", env=env
        )
        for name in convertible_crd_names():
            wait_for(
                f"CRD {name} converting through {self.url}",
                functools.partial(_converts_through, api, name, self.url),
                timeout=60,
            )

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None


@contextlib.contextmanager
def crds_served(kubeconfig: Path) -> Iterator[None]:
    """The repository's CRDs installed, the two-version ones converting through a webhook while
    the block runs: a `ConversionServer` of its own, unless the cluster has one configured.
    Without it, nothing that reads them at v1beta1 (the namespace controller, the garbage
    collector) can: a namespace holding a graph never finishes deleting."""
    api = kr8s.api(kubeconfig=str(kubeconfig))
    install_crds(api)
    if conversion_configured(api):
        yield
        return
    with tempfile.TemporaryDirectory(prefix="conversion-webhook-") as directory:
        server = ConversionServer(kubeconfig, Path(directory))
        server.start(api)
        try:
            yield
        finally:
            server.stop()


def conversion_configured(api: kr8s.Api) -> bool:
    """Whether every two-version CRD already converts through a webhook with a CA (an
    operator or a harness keeps it)."""
    return all(_client_config(api, name).get("caBundle") for name in convertible_crd_names())


def _client_config(api: kr8s.Api, name: str) -> dict[str, Any]:
    crd = CustomResourceDefinition.get(name, api=api)
    raw: dict[str, Any] = dict(crd.raw)
    webhook = (raw["spec"].get("conversion") or {}).get("webhook") or {}
    config: dict[str, Any] = webhook.get("clientConfig") or {}
    return config


def _converts_through(api: kr8s.Api, name: str, url: str) -> bool:
    config = _client_config(api, name)
    return config.get("url") == url and bool(config.get("caBundle"))


IN_CLUSTER_NAMESPACE = "dynamo-e2e-conversion"
IN_CLUSTER_SERVICE = "conversion"


class InClusterConversionServer:
    """On a cluster whose API server cannot reach 127.0.0.1 (kind): `dynamo-operator
    webhook-server` as a Deployment of the operator image the cluster has loaded, behind a
    Service, serving a certificate the harness issues for that Service (the runtime's own
    certificate code), the CRDs pointed at it with that CA. Stopped: the CRDs point nowhere until
    an operator installed by the chart takes them over."""

    def __init__(self, image: str) -> None:
        self.image = image

    def start(self, api: kr8s.Api) -> None:
        namespace, service = IN_CLUSTER_NAMESPACE, IN_CLUSTER_SERVICE
        policy = CertificatePolicy(dns_names=(f"{service}.{namespace}.svc",))
        certificates = plan_certificates(None, policy, datetime.now(UTC))
        for document in _in_cluster_objects(self.image, certificates.to_secret_data()):
            object_from_spec(document, api=api).create()
        wait_for(
            "the conversion webhook Deployment available",
            functools.partial(_available, api),
            timeout=180,
        )
        target = ConversionTarget.service(
            service, namespace, ca_bundle=lambda: certificates.ca_bundle_pem
        )
        for name in convertible_crd_names():
            crd = CustomResourceDefinition.get(name, api=api)
            patch = conversion_patch(dict(crd.raw), target)
            if patch is not None:
                crd.patch(patch, type="merge")

    def stop(self, api: kr8s.Api) -> None:
        with contextlib.suppress(kr8s.NotFoundError):
            Namespace.get(IN_CLUSTER_NAMESPACE, api=api).delete()


def _in_cluster_objects(image: str, tls: dict[str, str]) -> list[dict[str, Any]]:
    namespace, labels = IN_CLUSTER_NAMESPACE, {"app": IN_CLUSTER_SERVICE}
    metadata = {"name": IN_CLUSTER_SERVICE, "namespace": namespace}
    container = {
        "name": "webhook-server",
        "image": image,
        "imagePullPolicy": "Never",
        "args": ["webhook-server", "--cert-mode=files", "--cert-dir=/certs", "--port=9443"],
        "ports": [{"containerPort": 9443, "name": "https"}],
        "readinessProbe": {"tcpSocket": {"port": 9443}, "periodSeconds": 2},
        "volumeMounts": [{"name": "certs", "mountPath": "/certs", "readOnly": True}],
    }
    pod_spec = {
        "containers": [container],
        "volumes": [{"name": "certs", "secret": {"secretName": IN_CLUSTER_SERVICE}}],
    }
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}},
        {"apiVersion": "v1", "kind": "Secret", "metadata": metadata, "data": tls},
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": metadata,
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": labels},
                "template": {"metadata": {"labels": labels}, "spec": pod_spec},
            },
        },
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": metadata,
            "spec": {"selector": labels, "ports": [{"port": 443, "targetPort": 9443}]},
        },
    ]


def _available(api: kr8s.Api) -> bool:
    deployment = Deployment.get(IN_CLUSTER_SERVICE, namespace=IN_CLUSTER_NAMESPACE, api=api)
    raw: dict[str, Any] = dict(deployment.raw)
    return int((raw.get("status") or {}).get("availableReplicas") or 0) >= 1
