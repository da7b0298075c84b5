"""The Kubernetes objects of the test build service (``build_service``): a registry and a BuildKit
daemon, each a one-replica Deployment on the real node behind a ClusterIP Service, configured by a
ConfigMap (and the registry's htpasswd by a Secret). Storage is emptyDir: it lives as long as the
Pod."""

from __future__ import annotations

import subprocess
from typing import Any

import kr8s
from kr8s.objects import ConfigMap, Deployment, Secret, Service

from e2e.support.real_node import RealNodeCluster
from e2e.support.registry_client import Credentials

REGISTRY_PORT = 5000
BUILDKIT_PORT = 1234
_HTPASSWD = "/usr/bin/htpasswd"  # Debian's apache2-utils, installed by build-build-service.sh


def create_service(api: kr8s.Api, namespace: str, app: str, port: int) -> str:
    """A ClusterIP Service for the Pods labelled ``app``; returns its ClusterIP (known before the
    Pods exist, so their configuration can name it)."""
    service = Service(
        {
            "metadata": {"name": app, "namespace": namespace},
            "spec": {"selector": {"app": app}, "ports": [{"port": port, "targetPort": port}]},
        },
        api=api,
    )
    service.create()
    return str(service.raw["spec"]["clusterIP"])


def registry_config(*, with_auth: bool) -> str:
    """distribution's configuration: filesystem storage on the emptyDir, deletes allowed (tests may
    clean up), optionally htpasswd auth."""
    auth = (
        "auth:\n  htpasswd:\n    realm: dynamo-e2e\n    path: /etc/distribution/auth/htpasswd\n"
        if with_auth
        else ""
    )
    return (
        "version: 0.1\n"
        "log:\n  level: info\n"
        "storage:\n  filesystem:\n    rootdirectory: /var/lib/registry\n"
        "  delete:\n    enabled: true\n"
        f"http:\n  addr: :{REGISTRY_PORT}\n" + auth
    )


def buildkitd_config(registry: str) -> str:
    """buildkitd.toml: pull from the test registry over plain HTTP (``FROM <registry>/...``)."""
    return f'[registry."{registry}"]\n  http = true\n  insecure = true\n'


def create_registry(
    api: kr8s.Api,
    namespace: str,
    image: str,
    placement: dict[str, Any],
    *,
    credentials: Credentials | None,
) -> None:
    config = {"config.yml": registry_config(with_auth=credentials is not None)}
    ConfigMap(_metadata("registry", namespace) | {"data": config}, api=api).create()
    mounts = [
        {"name": "config", "mountPath": "/etc/distribution"},
        {"name": "storage", "mountPath": "/var/lib/registry"},
    ]
    volumes: list[dict[str, Any]] = [
        {"name": "config", "configMap": {"name": "registry"}},
        {"name": "storage", "emptyDir": {}},
    ]
    if credentials is not None:
        htpasswd = {"htpasswd": _htpasswd_line(credentials)}
        Secret(_metadata("registry-auth", namespace) | {"stringData": htpasswd}, api=api).create()
        mounts.append({"name": "auth", "mountPath": "/etc/distribution/auth"})
        volumes.append({"name": "auth", "secret": {"secretName": "registry-auth"}})
    container = {
        "name": "registry",
        "image": image,
        "imagePullPolicy": "Never",
        "args": ["serve", "/etc/distribution/config.yml"],
        "ports": [{"containerPort": REGISTRY_PORT}],
        "readinessProbe": {"httpGet": {"path": "/", "port": REGISTRY_PORT}, "periodSeconds": 1},
        "volumeMounts": mounts,
    }
    _create_deployment(api, namespace, "registry", placement, [container], volumes)


def create_buildkitd(
    api: kr8s.Api, namespace: str, image: str, placement: dict[str, Any], registry: str
) -> None:
    config = {"buildkitd.toml": buildkitd_config(registry)}
    ConfigMap(_metadata("buildkitd", namespace) | {"data": config}, api=api).create()
    container = {
        "name": "buildkitd",
        "image": image,
        "imagePullPolicy": "Never",
        "args": [
            f"--addr=tcp://0.0.0.0:{BUILDKIT_PORT}",
            "--addr=unix:///run/buildkit/buildkitd.sock",
            "--config=/etc/buildkit/buildkitd.toml",
            "--oci-worker-snapshotter=overlayfs",
        ],
        "ports": [{"containerPort": BUILDKIT_PORT}],
        # Privileged: runc for RUN steps makes namespaces and mounts, overlayfs mounts snapshots.
        "securityContext": {"privileged": True},
        "readinessProbe": {"tcpSocket": {"port": BUILDKIT_PORT}, "periodSeconds": 1},
        "volumeMounts": [
            {"name": "config", "mountPath": "/etc/buildkit"},
            {"name": "state", "mountPath": "/var/lib/buildkit"},
        ],
    }
    volumes = [
        {"name": "config", "configMap": {"name": "buildkitd"}},
        {"name": "state", "emptyDir": {}},
    ]
    _create_deployment(api, namespace, "buildkitd", placement, [container], volumes)


def describe_pods(real_node: RealNodeCluster, namespace: str) -> str:
    """Each Pod's phase, container states and log tail: what a failed wait reports."""
    lines = []
    client = real_node.cluster.admin_client()
    for pod in client.get(f"/api/v1/namespaces/{namespace}/pods")["items"]:
        name, status = pod["metadata"]["name"], pod.get("status", {})
        lines.append(f"pod {name}: {status.get('phase')} {status.get('containerStatuses')}")
        try:
            log = real_node.pod_logs(namespace, name)
        except Exception as error:  # a diagnostic only: say why there is none
            log = f"(no log: {error})"
        lines.extend(f"  | {line}" for line in log.splitlines()[-15:])
    return "\n".join(lines)


def _create_deployment(
    api: kr8s.Api,
    namespace: str,
    app: str,
    placement: dict[str, Any],
    containers: list[dict[str, Any]],
    volumes: list[dict[str, Any]],
) -> None:
    pod_spec = {
        **placement,
        "terminationGracePeriodSeconds": 1,
        "containers": containers,
        "volumes": volumes,
    }
    spec = {
        "replicas": 1,
        "selector": {"matchLabels": {"app": app}},
        "template": {"metadata": {"labels": {"app": app}}, "spec": pod_spec},
    }
    Deployment(_metadata(app, namespace) | {"spec": spec}, api=api).create()


def _metadata(name: str, namespace: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": namespace, "labels": {"app": name}}}


def _htpasswd_line(credentials: Credentials) -> str:
    """``user:<bcrypt>``: distribution's htpasswd accepts bcrypt only (no bcrypt in the
    standard library, so Debian's htpasswd makes it)."""
    username, password = credentials
    result = subprocess.run(
        [_HTPASSWD, "-nbB", username, password], capture_output=True, text=True, check=True
    )
    return result.stdout.strip() + "\n"
