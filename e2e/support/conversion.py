"""The conversion webhook of a test cluster: `dynamo-operator webhook-server` on 127.0.0.1 with
`--configure-crd-conversion`, as a user running the operator out of cluster would serve it.

The CRDs of DynamoGraphDeployment, DynamoComponentDeployment and the scaling adapter are served at
v1alpha1 and v1beta1; `kubectl get dgd`, the namespace controller and the garbage collector read
them at the preferred version, v1beta1, so a cluster with those CRDs needs the webhook up, as a
real cluster has the operator's. The local control plane gets one per session, beside its CRDs.
"""

from __future__ import annotations

import functools
import os
import subprocess
from pathlib import Path
from typing import Any

import kr8s

from e2e.localcluster import wait_for
from e2e.localcluster.ports import free_port
from e2e.support.crds import CustomResourceDefinition
from e2e.support.webhooks import start_webhook_server
from webhooks import convertible_crd_names


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


def _converts_through(api: kr8s.Api, name: str, url: str) -> bool:
    crd = CustomResourceDefinition.get(name, api=api)
    raw: dict[str, Any] = dict(crd.raw)
    webhook = (raw["spec"].get("conversion") or {}).get("webhook") or {}
    config: dict[str, Any] = webhook.get("clientConfig") or {}
    return config.get("url") == url and bool(config.get("caBundle"))
