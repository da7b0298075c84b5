"""Smoke tests of the e2e harness: the cluster behaves like a real one for the workloads we create.

They run against the local control plane or any cluster given by DYNAMO_E2E_KUBECONFIG.
"""

from __future__ import annotations

from typing import Any

import kr8s
import pytest
from kr8s.objects import APIObject, ConfigMap, Deployment, Namespace, Node, Pod, new_class

from e2e.localcluster import wait_for
from e2e.support import kwok_only

pytestmark = pytest.mark.e2e

_IMAGE = "registry.invalid/never-pulled:1"  # fake nodes never pull anything


def _deployment(namespace: str, name: str, replicas: int) -> dict[str, Any]:
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "main", "image": _IMAGE}]},
            },
        },
    }


def _objects(api: kr8s.Api, kind: str, namespace: str, **selectors: Any) -> list[dict[str, Any]]:
    """Raw objects of one kind: the sync client yields them lazily, as objects or dicts."""
    return [
        obj.raw if isinstance(obj, APIObject) else obj
        for obj in api.get(kind, namespace=namespace, **selectors)
    ]


def _status_count(raw: dict[str, Any], field: str) -> int:
    return int(raw.get("status", {}).get(field, 0))


def _names(api: kr8s.Api, kind: str, namespace: str) -> list[str]:
    return [obj["metadata"]["name"] for obj in _objects(api, kind, namespace)]


@kwok_only.UNPULLABLE_IMAGE
def test_deployment_pods_become_running_and_available(kr8s_api: kr8s.Api, namespace: str) -> None:
    deployment = Deployment(_deployment(namespace, "web", replicas=2), api=kr8s_api)
    deployment.create()

    def available_replicas() -> int:
        deployment.refresh()
        return _status_count(deployment.raw, "availableReplicas")

    wait_for("2 available replicas", lambda: available_replicas() == 2)
    pods = _objects(kr8s_api, "pods", namespace, label_selector={"app": "web"})
    assert len(pods) == 2
    for pod in pods:
        assert pod["status"]["phase"] == "Running"
        assert pod["spec"]["nodeName"]
        assert pod["status"].get("podIP")


def test_deleting_a_deployment_garbage_collects_its_replicaset_and_pods(
    kr8s_api: kr8s.Api, namespace: str
) -> None:
    deployment = Deployment(_deployment(namespace, "doomed", replicas=2), api=kr8s_api)
    deployment.create()
    wait_for("2 pods", lambda: len(_names(kr8s_api, "pods", namespace)) == 2)
    replicasets = _objects(kr8s_api, "replicasets", namespace)
    assert [rs["metadata"]["ownerReferences"][0]["kind"] for rs in replicasets] == ["Deployment"]

    deployment.delete(propagation_policy="Background")

    wait_for(
        "ReplicaSets and Pods garbage-collected",
        lambda: (
            not _names(kr8s_api, "replicasets", namespace)
            and not _names(kr8s_api, "pods", namespace)
        ),
    )


@kwok_only.FAKE_GPUS
def test_a_pod_requesting_gpus_is_scheduled_on_a_fake_gpu_node(
    kr8s_api: kr8s.Api, namespace: str
) -> None:
    gpus = {"nvidia.com/gpu": "4"}
    pod = Pod(
        {
            "metadata": {"name": "gpu-worker", "namespace": namespace},
            "spec": {
                "containers": [
                    {
                        "name": "main",
                        "image": _IMAGE,
                        "resources": {"limits": gpus, "requests": gpus},
                    }
                ]
            },
        },
        api=kr8s_api,
    )
    pod.create()

    def running() -> bool:
        pod.refresh()
        return bool(pod.raw["status"].get("phase") == "Running")

    wait_for("the GPU pod Running", running)
    node = Node.get(pod.raw["spec"]["nodeName"], api=kr8s_api)
    assert int(node.raw["status"]["allocatable"]["nvidia.com/gpu"]) >= 4


def test_a_deleted_namespace_with_content_goes_away(kr8s_api: kr8s.Api) -> None:
    namespace = Namespace({"metadata": {"name": "harness-deleted-namespace"}}, api=kr8s_api)
    namespace.create()
    ConfigMap(
        {"metadata": {"name": "content", "namespace": namespace.name}, "data": {"k": "v"}},
        api=kr8s_api,
    ).create()

    namespace.delete()

    wait_for(
        "the namespace to be deleted",
        lambda: namespace.name not in _names(kr8s_api, "namespaces", ""),
    )


LeaderWorkerSet = new_class(
    "LeaderWorkerSet", version="leaderworkerset.x-k8s.io/v1", namespaced=True, asyncio=False
)


@kwok_only.UNPULLABLE_IMAGE
def test_a_leaderworkerset_gets_a_leader_and_workers_that_become_ready(
    kr8s_api: kr8s.Api, namespace: str
) -> None:
    group = LeaderWorkerSet(
        {
            "metadata": {"name": "group", "namespace": namespace},
            "spec": {
                "replicas": 1,
                "leaderWorkerTemplate": {
                    "size": 3,
                    "workerTemplate": {"spec": {"containers": [{"name": "main", "image": _IMAGE}]}},
                },
            },
        },
        api=kr8s_api,
    )
    group.create()

    def ready_replicas() -> int:
        group.refresh()
        return _status_count(group.raw, "readyReplicas")

    wait_for("the LeaderWorkerSet's group Ready", lambda: ready_replicas() == 1)
    pods = _objects(kr8s_api, "pods", namespace)
    assert len(pods) == 3
    assert all(pod["status"]["phase"] == "Running" for pod in pods)
