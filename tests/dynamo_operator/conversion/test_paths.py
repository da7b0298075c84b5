"""beta_path: a v1alpha1 path of the converted object, where the v1beta1 user wrote it."""

from __future__ import annotations

from typing import Any

import pytest

from dynamo_operator.conversion import beta_path

GRAPH: dict[str, Any] = {
    "apiVersion": "nvidia.com/v1beta1",
    "kind": "DynamoGraphDeployment",
    "metadata": {"name": "g"},
    "spec": {
        "env": [{"name": "G", "value": "1"}],
        "components": [
            {"name": "Frontend", "type": "frontend"},
            {
                "name": "w.1",
                "type": "prefill",
                "sharedMemorySize": "0",
                "compilationCache": {"pvcName": "cache", "mountPath": "/c"},
                "podTemplate": {
                    "metadata": {"labels": {"a": "b"}},
                    "spec": {
                        "containers": [
                            {"name": "side", "image": "s"},
                            {
                                "name": "main",
                                "image": "m",
                                "env": [{"name": "A", "value": "1"}, {"name": "A"}, {"name": "B"}],
                                "envFrom": [{"secretRef": {"name": "tok"}}],
                                "resources": {"limits": {"nvidia.com/gpu": "1", "x/y": "2"}},
                                "volumeMounts": [{"name": "v", "mountPath": "/v"}],
                            },
                        ],
                        "volumes": [{"name": "v", "emptyDir": {}}],
                    },
                },
            },
        ],
    },
}
W = "spec.components[1]"
MAIN = f"{W}.podTemplate.spec.containers[1]"


@pytest.mark.parametrize(
    ("alpha", "beta"),
    [
        ("spec.envs[0].name", "spec.env[0].name"),
        ("spec.services.Frontend.componentType", "spec.components[0].type"),
        ("spec.services.w.1.subComponentType", "spec.components[1].type"),
        ("spec.services.w.1.envs[1].name", f"{MAIN}.env[2].name"),
        ("spec.services.w.1.envs[0]", f"{MAIN}.env[1]"),
        ("spec.services.w.1.extraPodSpec.mainContainer.env[0].value", f"{MAIN}.env[0].value"),
        ("spec.services.w.1.extraPodSpec.mainContainer.image", f"{MAIN}.image"),
        ("spec.services.w.1.extraPodSpec.containers[0].image", f"{W}.podTemplate.spec.containers[0].image"),  # noqa: E501
        ("spec.services.w.1.extraPodSpec.volumes[0]", f"{W}.podTemplate.spec.volumes[0]"),
        ("spec.services.w.1.extraPodMetadata.labels", f"{W}.podTemplate.metadata.labels"),
        ("spec.services.w.1.envFromSecret", f"{MAIN}.envFrom[0]"),
        ("spec.services.w.1.resources.limits.gpu", f"{MAIN}.resources.limits.nvidia.com/gpu"),
        ("spec.services.w.1.resources.limits.custom.x/y", f"{MAIN}.resources.limits.x/y"),
        ("spec.services.w.1.volumeMounts[0].mountPoint", f"{W}.compilationCache.mountPath"),
        ("spec.services.w.1.sharedMemory.size", "spec.components[1].sharedMemorySize"),
        ("spec.services.w.1.ingress.host", "spec.components[1]"),
        ("spec.services.Gone.replicas", "spec.components"),
        ("spec.pvcs[0].name", "spec"),
        ("metadata.name", "metadata.name"),
    ],
)  # fmt: skip
def test_alpha_paths_map_to_where_the_beta_user_wrote_them(alpha: str, beta: str) -> None:
    assert beta_path(GRAPH, alpha) == beta


def test_component_deployments_and_adapters_map_too() -> None:
    dcd = {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoComponentDeployment",
        "metadata": {"name": "d"},
        "spec": {
            "name": "W",
            "podTemplate": {"spec": {"containers": [{"name": "main", "image": "i"}]}},
        },
    }
    assert beta_path(dcd, "spec.serviceName") == "spec.name"
    assert (
        beta_path(dcd, "spec.extraPodSpec.mainContainer.image")
        == "spec.podTemplate.spec.containers[0].image"
    )
    adapter = {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoGraphDeploymentScalingAdapter",
        "spec": {},
    }
    assert beta_path(adapter, "spec.dgdRef.serviceName") == "spec.dgdRef.componentName"
    assert beta_path({"kind": "Unknown"}, "spec.x") == "spec.x"
