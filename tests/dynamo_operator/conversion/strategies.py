"""Hypothesis strategies for the conversion tests: valid v1alpha1 and v1beta1 objects.

v1alpha1 services draw every field of ``DynamoComponentDeploymentSharedSpec`` (and the combinations
that make the conversion work: env clashes between ``envs`` and ``mainContainer.env``, a secret
both in ``envFromSecret`` and ``mainContainer.envFrom``, probes at both places, resources split
between ``resources`` and ``mainContainer.resources``, several compilation-cache mounts...).
v1beta1 components draw what only v1beta1 can say (the main container anywhere in the list,
pod-template metadata beyond labels and annotations, duplicate env names,
``sharedMemorySize: "0"``). Both draw upstream's experimental blocks (v1alpha1 ``gpuMemoryService``,
``failover``, ``checkpoint``; v1beta1 ``experimental``) turned off, modes in either spelling: a
block turned on is refused by validation (``tests/dynamo_operator/conversion/test_experimental.py``
turns them on for its round trips).
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

ROUND_TRIPS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

NAMES = st.sampled_from(["Frontend", "decode", "prefill", "VllmWorker", "planner", "epp-1"])
ENV_NAMES = st.sampled_from(["HF_HOME", "A", "B", "DYN_LOG", "PORT"])
QUANTITIES = st.sampled_from(["1", "2", "500m", "8Gi", "16Gi", 1, 4])
IMAGES = st.sampled_from(["registry.local/dynamo/vllm:1.2.0", "registry.local/dynamo/sglang:1.2.0"])
LABELS = st.dictionaries(
    st.sampled_from(["team", "app.kubernetes.io/part-of", "tier"]),
    st.sampled_from(["a", "inference", "b-1"]),
    max_size=2,
)
SECRET = st.sampled_from(["hf-token", "ngc-token"])
GMS_MODES = st.sampled_from(["intraPod", "interPod", "IntraPod", "InterPod", "other"])
EXPERIMENTAL_BLOCKS = {
    "gpuMemoryService": {"mode": GMS_MODES, "deviceClassName": st.just("gpu.nvidia.com")},
    "failover": {"mode": GMS_MODES, "numShadows": st.just(1)},
}
CHECKPOINT = st.fixed_dictionaries(
    {},
    optional={
        "enabled": st.just(False),
        "mode": st.just("Auto"),
        "checkpointRef": st.just("snapshot"),
        "identity": st.just({"model": "Qwen/Qwen3-0.6B", "backendFramework": "vllm"}),
        "startupPolicy": st.just("WaitForCheckpoint"),
    },
)


def experimental_block(name: str, *, beta: bool = False) -> st.SearchStrategy[dict[str, Any]]:
    """A GMS or failover block turned off: v1alpha1 without ``enabled: true``, v1beta1 (where
    presence turns it on) with ``enabled: false``."""
    enabled = {"enabled": st.just(False)}
    return st.fixed_dictionaries(
        enabled if beta else {}, optional={**({} if beta else enabled), **EXPERIMENTAL_BLOCKS[name]}
    )


def env_var() -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        st.fixed_dictionaries({"name": ENV_NAMES, "value": st.sampled_from(["1", "x", ""])}),
        st.fixed_dictionaries(
            {"name": ENV_NAMES, "valueFrom": st.just({"fieldRef": {"fieldPath": "metadata.name"}})}
        ),
    )


def unique_env(size: int) -> st.SearchStrategy[list[dict[str, Any]]]:
    return st.lists(env_var(), max_size=size, unique_by=lambda e: e["name"])


def probe() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"httpGet": st.fixed_dictionaries({"path": st.just("/health"), "port": st.just(9090)})},
        optional={"periodSeconds": st.integers(1, 30), "failureThreshold": st.integers(1, 5)},
    )


def resource_side() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "cpu": QUANTITIES,
            "memory": QUANTITIES,
            "gpu": st.sampled_from(["1", "2", "8"]),
            "gpuType": st.sampled_from(["nvidia.com/gpu", "amd.com/gpu"]),
            "custom": st.dictionaries(
                st.sampled_from(["example.com/fpga", "hugepages-2Mi", "rdma/ib"]),
                QUANTITIES,
                max_size=2,
            ),
        },
    )


def container_resources() -> st.SearchStrategy[dict[str, Any]]:
    amounts = st.dictionaries(
        st.sampled_from(["cpu", "memory", "ephemeral-storage", "nvidia.com/gpu"]),
        QUANTITIES,
        min_size=1,
        max_size=2,
    )
    return st.fixed_dictionaries({}, optional={"requests": amounts, "limits": amounts})


def main_container() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"image": IMAGES},
        optional={
            "command": st.just(["python3", "-m", "dynamo.vllm"]),
            "args": st.lists(
                st.sampled_from(["--model", "Qwen/Qwen3-0.6B", "-tp", "1"]), max_size=3
            ),
            "workingDir": st.just("/workspace"),
            "env": unique_env(3),
            "envFrom": st.lists(
                st.one_of(
                    st.just({"configMapRef": {"name": "settings"}}),
                    SECRET.map(lambda name: {"secretRef": {"name": name}}),
                ),
                max_size=2,
            ),
            "resources": container_resources(),
            "livenessProbe": probe(),
            "readinessProbe": probe(),
            "startupProbe": probe(),
            "volumeMounts": st.lists(
                st.fixed_dictionaries(
                    {
                        "name": st.sampled_from(["scratch", "config"]),
                        "mountPath": st.just("/mnt/x"),
                    },
                    optional={"readOnly": st.booleans()},
                ),
                max_size=2,
                unique_by=lambda m: m["name"],
            ),
            "ports": st.just([{"name": "http", "containerPort": 8000}]),
        },
    )


def sidecar() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            "name": st.sampled_from(["proxy", "metrics", "log-shipper"]),
            "image": st.just("busybox:1"),
        },
        optional={"args": st.just(["sleep", "inf"])},
    )


def extra_pod_spec() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "mainContainer": main_container(),
            "containers": st.lists(sidecar(), max_size=2, unique_by=lambda c: c["name"]),
            "volumes": st.lists(
                st.fixed_dictionaries(
                    {"name": st.sampled_from(["scratch", "config"]), "emptyDir": st.just({})}
                ),
                max_size=2,
                unique_by=lambda v: v["name"],
            ),
            "tolerations": st.lists(st.just({"operator": "Exists"}), max_size=1),
            "nodeSelector": st.dictionaries(st.just("pool"), st.just("gpu"), max_size=1),
            "terminationGracePeriodSeconds": st.integers(0, 60),
            "serviceAccountName": st.just("runner"),
        },
    )


TYPE_PAIRS = st.sampled_from(
    [
        {},
        {"componentType": "frontend"},
        {"componentType": "worker"},
        {"componentType": "worker", "subComponentType": "prefill"},
        {"componentType": "worker", "subComponentType": "decode"},
        {"componentType": "prefill"},
        {"componentType": "decode"},
        {"componentType": "planner"},
        {"componentType": "epp"},
        {"componentType": "main"},
        {"componentType": "default"},
        {"componentType": "worker", "subComponentType": "something"},
        {"subComponentType": "prefill"},
    ]
)


def volume_mounts() -> st.SearchStrategy[list[dict[str, Any]]]:
    mount = st.one_of(
        st.fixed_dictionaries(
            {"name": st.sampled_from(["model-cache", "other"]), "mountPoint": st.just("/models")}
        ),
        st.fixed_dictionaries(
            {
                "name": st.sampled_from(["model-cache", "other"]),
                "useAsCompilationCache": st.just(True),
            },
            optional={"mountPoint": st.just("/cache")},
        ),
        st.fixed_dictionaries(
            {
                "name": st.sampled_from(["model-cache", "other"]),
                "mountPoint": st.just("/data"),
                "useAsCompilationCache": st.just(False),
            }
        ),
    )
    return st.lists(mount, min_size=1, max_size=3, unique_by=lambda m: m["name"])


def alpha_service() -> st.SearchStrategy[dict[str, Any]]:
    fields = st.fixed_dictionaries(
        {},
        optional={
            "annotations": LABELS,
            "labels": LABELS,
            "dynamoNamespace": st.just("team-a"),
            "resources": st.fixed_dictionaries(
                {},
                optional={
                    "requests": resource_side(),
                    "limits": resource_side(),
                    "claims": st.just([{"name": "gpu-claim"}]),
                },
            ),
            "autoscaling": st.fixed_dictionaries(
                {"enabled": st.booleans(), "maxReplicas": st.integers(2, 5)},
                optional={"minReplicas": st.integers(0, 2)},
            ),
            "envs": unique_env(3),
            "envFromSecret": SECRET,
            "volumeMounts": volume_mounts(),
            "ingress": st.fixed_dictionaries(
                {"enabled": st.booleans(), "host": st.just("llm.example.com")}
            ),
            "sharedMemory": st.sampled_from(
                [
                    {"size": "16Gi"},
                    {"disabled": True},
                    {"disabled": False, "size": "4Gi"},
                    {"disabled": True, "size": "1Gi"},
                ]
            ),
            "extraPodMetadata": st.fixed_dictionaries(
                {}, optional={"labels": LABELS, "annotations": LABELS}
            ),
            "extraPodSpec": extra_pod_spec(),
            "livenessProbe": probe(),
            "readinessProbe": probe(),
            "replicas": st.integers(0, 5),
            "multinode": st.fixed_dictionaries({}, optional={"nodeCount": st.integers(2, 4)}),
            "modelRef": st.fixed_dictionaries(
                {"name": st.just("Qwen/Qwen3-0.6B")}, optional={"revision": st.just("main")}
            ),
            "scalingAdapter": st.fixed_dictionaries({"enabled": st.booleans()}),
            "serviceName": st.sampled_from(["Frontend", "worker", "other"]),
            "gpuMemoryService": experimental_block("gpuMemoryService"),
            "failover": experimental_block("failover"),
            "checkpoint": CHECKPOINT,
        },
    )
    return st.tuples(TYPE_PAIRS, fields).map(lambda pair: {**pair[0], **pair[1]})


def object_metadata(name: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"name": st.just(name), "namespace": st.just("team-a")},
        optional={
            "annotations": st.one_of(st.just({}), LABELS),
            "labels": LABELS,
            "uid": st.just("0f6b1b9e-0000-4000-8000-000000000001"),
            "generation": st.integers(1, 9),
        },
    )


def alpha_graphs() -> st.SearchStrategy[dict[str, Any]]:
    spec = st.fixed_dictionaries(
        {"services": st.dictionaries(NAMES, alpha_service(), min_size=1, max_size=3)},
        optional={
            "envs": unique_env(2),
            "backendFramework": st.sampled_from(["vllm", "sglang", "trtllm"]),
            "pvcs": st.just(
                [{"name": "model-cache", "create": False}, {"name": "other", "create": False}]
            ),
            "dynamoComponent": st.just("llm:v1"),
        },
    )
    return st.fixed_dictionaries(
        {
            "apiVersion": st.just("nvidia.com/v1alpha1"),
            "kind": st.just("DynamoGraphDeployment"),
            "metadata": object_metadata("graph"),
            "spec": spec,
        },
        optional={"status": graph_status(alpha=True)},
    )


def alpha_component_deployments() -> st.SearchStrategy[dict[str, Any]]:
    spec = st.tuples(
        alpha_service(),
        st.fixed_dictionaries(
            {},
            optional={
                "backendFramework": st.sampled_from(["vllm", "sglang"]),
                "dynamoComponent": st.just("llm:v1"),
                "dynamoTag": st.just("graphs.agg:Frontend"),
            },
        ),
    ).map(lambda pair: {**pair[0], **pair[1]})
    return st.fixed_dictionaries(
        {
            "apiVersion": st.just("nvidia.com/v1alpha1"),
            "kind": st.just("DynamoComponentDeployment"),
            "metadata": object_metadata("graph-frontend"),
            "spec": spec,
        },
        optional={"status": component_status(alpha=True)},
    )


def replica_status() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"componentKind": st.just("Deployment"), "componentName": st.just("graph-frontend")},
        optional={"replicas": st.integers(0, 3), "readyReplicas": st.integers(0, 3)},
    )


def graph_status(*, alpha: bool) -> st.SearchStrategy[dict[str, Any]]:
    field, updated = (
        ("services", "updatedServices") if alpha else ("components", "updatedComponents")
    )
    return st.fixed_dictionaries(
        {},
        optional={
            "state": st.sampled_from(["pending", "successful"]),
            "observedGeneration": st.integers(1, 5),
            "conditions": st.just([{"type": "Ready", "status": "True"}]),
            field: st.dictionaries(NAMES, replica_status(), max_size=2),
            "rollingUpdate": st.fixed_dictionaries(
                {"phase": st.just("InProgress")},
                optional={updated: st.lists(NAMES, max_size=2, unique=True)},
            ),
        },
    )


def component_status(*, alpha: bool) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "observedGeneration": st.integers(1, 5),
            "podSelector": st.just({"app": "x"}),
            "service" if alpha else "component": replica_status(),
        },
    )


def beta_main() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"name": st.just("main"), "image": IMAGES},
        optional={
            "args": st.just(["--model-path", "Qwen/Qwen3-0.6B"]),
            "env": st.lists(env_var(), max_size=4),  # duplicates allowed
            "envFrom": st.lists(
                st.one_of(
                    SECRET.map(lambda name: {"secretRef": {"name": name}}),
                    st.just({"configMapRef": {"name": "settings"}}),
                ),
                max_size=2,
            ),
            "resources": st.fixed_dictionaries(
                {},
                optional={
                    "limits": st.dictionaries(
                        st.sampled_from(
                            ["cpu", "nvidia.com/gpu", "amd.com/gpu", "example.com/fpga"]
                        ),
                        st.sampled_from(["1", "2", 4]),
                        max_size=3,
                    ),
                    "requests": st.dictionaries(
                        st.sampled_from(["ephemeral-storage", "memory"]),
                        QUANTITIES,
                        max_size=2,
                    ),
                    "claims": st.just([{"name": "gpu-claim"}]),
                },
            ),
            "livenessProbe": probe(),
            "readinessProbe": probe(),
            "volumeMounts": st.lists(
                st.fixed_dictionaries(
                    {"name": st.sampled_from(["scratch", "config"]), "mountPath": st.just("/mnt/y")}
                ),
                max_size=2,
                unique_by=lambda m: m["name"],
            ),
        },
    )


def beta_component(name: str) -> st.SearchStrategy[dict[str, Any]]:
    containers = st.tuples(
        beta_main(),
        st.lists(sidecar(), max_size=2, unique_by=lambda c: c["name"]),
        st.integers(0, 2),
    ).map(lambda t: [*t[1][: t[2]], t[0], *t[1][t[2] :]])
    pod_template = st.fixed_dictionaries(
        {
            "spec": st.fixed_dictionaries(
                {"containers": containers},
                optional={
                    "volumes": st.just([{"name": "scratch", "emptyDir": {}}]),
                    "nodeSelector": st.just({"pool": "gpu"}),
                },
            )
        },
        optional={
            "metadata": st.fixed_dictionaries(
                {},
                optional={"labels": LABELS, "annotations": LABELS, "name": st.just("tpl")},
            )
        },
    )
    return st.fixed_dictionaries(
        {"name": st.just(name)},
        optional={
            "type": st.sampled_from(["frontend", "worker", "prefill", "decode", "planner", "epp"]),
            "replicas": st.integers(0, 4),
            "multinode": st.fixed_dictionaries({"nodeCount": st.integers(2, 4)}),
            "modelRef": st.just({"name": "Qwen/Qwen3-0.6B"}),
            "scalingAdapter": st.just({}),
            "sharedMemorySize": st.sampled_from(["0", "8Gi", "16Gi"]),
            "compilationCache": st.fixed_dictionaries(
                {"pvcName": st.just("cache"), "mountPath": st.just("/cache")}
            ),
            "podTemplate": pod_template,
            "experimental": st.fixed_dictionaries(
                {},
                optional={
                    "gpuMemoryService": experimental_block("gpuMemoryService", beta=True),
                    "failover": experimental_block("failover", beta=True),
                    "checkpoint": CHECKPOINT,
                },
            ),
        },
    ).map(_main_image_when_multinode)


def _main_image_when_multinode(component: dict[str, Any]) -> dict[str, Any]:
    """A multinode component runs its main container's image on every pod: admission requires one
    (a draw without a pod template gets a main container)."""
    if "multinode" in component and "podTemplate" not in component:
        main = {"name": "main", "image": "busybox:1"}
        component = {**component, "podTemplate": {"spec": {"containers": [main]}}}
    return component


def beta_graphs() -> st.SearchStrategy[dict[str, Any]]:
    components = st.lists(NAMES, min_size=1, max_size=3, unique=True).flatmap(
        lambda names: st.tuples(*(beta_component(n) for n in names)).map(list)
    )
    return st.fixed_dictionaries(
        {
            "apiVersion": st.just("nvidia.com/v1beta1"),
            "kind": st.just("DynamoGraphDeployment"),
            "metadata": object_metadata("graph"),
            "spec": st.fixed_dictionaries(
                {"components": components},
                optional={
                    "env": unique_env(2),
                    "backendFramework": st.sampled_from(["vllm", "sglang", "trtllm"]),
                },
            ),
        },
        optional={"status": graph_status(alpha=False)},
    )


def beta_component_deployments() -> st.SearchStrategy[dict[str, Any]]:
    spec = st.tuples(
        beta_component("Frontend"), st.sampled_from([{}, {"backendFramework": "vllm"}])
    )
    return st.fixed_dictionaries(
        {
            "apiVersion": st.just("nvidia.com/v1beta1"),
            "kind": st.just("DynamoComponentDeployment"),
            "metadata": object_metadata("graph-frontend"),
            "spec": spec.map(lambda pair: {**pair[0], **pair[1]}),
        },
        optional={"status": component_status(alpha=False)},
    )
