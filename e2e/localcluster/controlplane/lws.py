"""LeaderWorkerSet: its CRD and its controller, run as a process against the local apiserver.

The controller normally runs in a Pod behind a Service with cert-manager-like internal certificate
rotation. Here it runs on the host: internal cert management is off, its webhook server listens on
127.0.0.1 with a certificate from our CA, and the webhook configurations from its module point at
that address by URL instead of a Service.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from e2e.localcluster.controlplane.pki import Pki

_CRD_FILE = Path("config/crd/bases/leaderworkerset.x-k8s.io_leaderworkersets.yaml")
_WEBHOOK_FILE = Path("config/webhook/manifests.yaml")
# Only pods that belong to a LeaderWorkerSet go through its pod webhooks (upstream's kustomize patch
# does the same); anything else must not depend on this controller being up.
_POD_OBJECT_SELECTOR = {
    "matchExpressions": [{"key": "leaderworkerset.sigs.k8s.io/name", "operator": "Exists"}]
}


def crd_document(lws_source: Path) -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load((lws_source / _CRD_FILE).read_text())
    return document


def write_controller_config(
    path: Path, *, cert_dir: Path, webhook_port: int, metrics_port: int, health_port: int
) -> Path:
    config = {
        "apiVersion": "config.lws.x-k8s.io/v1alpha1",
        "kind": "Configuration",
        "leaderElection": {"leaderElect": False},
        "internalCertManagement": {"enable": False},
        "webhook": {"host": "127.0.0.1", "port": webhook_port, "certDir": str(cert_dir)},
        "metrics": {"bindAddress": f"127.0.0.1:{metrics_port}"},
        "health": {"healthProbeBindAddress": f"127.0.0.1:{health_port}"},
    }
    path.write_text(json.dumps(config, indent=2))
    return path


def issue_webhook_cert(pki: Pki, cert_dir: Path) -> None:
    """controller-runtime's webhook server reads tls.crt/tls.key from its cert dir."""
    cert_dir.mkdir(parents=True, exist_ok=True)
    pki.issue_serving_cert(cert_dir, "tls")


def webhook_configurations(lws_source: Path, *, port: int, ca_bundle: str) -> list[dict[str, Any]]:
    """Upstream's webhook configurations, re-pointed from the in-cluster Service to 127.0.0.1."""
    documents = [doc for doc in yaml.safe_load_all((lws_source / _WEBHOOK_FILE).read_text()) if doc]
    for document in documents:
        document["metadata"]["name"] = f"lws-{document['metadata']['name']}"
        for webhook in document["webhooks"]:
            path = webhook["clientConfig"]["service"]["path"]
            webhook["clientConfig"] = {
                "url": f"https://127.0.0.1:{port}{path}",
                "caBundle": ca_bundle,
            }
            if any("pods" in rule["resources"] for rule in webhook["rules"]):
                webhook["objectSelector"] = _POD_OBJECT_SELECTOR
    return documents
