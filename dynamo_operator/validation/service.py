"""Rules for one service entry, shared by a graph's services and a component deployment's spec.

``backend`` is the effective backend (``backend_inference.effective_backend``: declared, else read
off the launch command), exactly as the builders see it: it decides, for example, whether a
compilation cache without a mount point has a default (vLLM's). ``declared_pvcs`` is None for
a standalone component deployment, whose mounts refer to claims that already exist.
"""

from __future__ import annotations

from collections.abc import Collection

from dynamo_operator.api import BackendFramework, DynamoComponentDeploymentSharedSpec
from dynamo_operator.backend_inference import effective_backend, launched_backends
from dynamo_operator.field_paths import join_path
from dynamo_operator.validation.annotations import (
    check_discovery_backend,
    check_rollout_annotations,
)
from dynamo_operator.validation.collector import IssueCollector
from dynamo_operator.validation.experimental import check_experimental
from dynamo_operator.validation.launch_command import check_multinode_launch
from dynamo_operator.validation.names import check_annotations, check_labels
from dynamo_operator.validation.pod_spec import check_pod_overrides
from dynamo_operator.validation.resources import check_resources
from dynamo_operator.validation.result import IssueReason
from dynamo_operator.validation.shapes import quantity

# Each replica of a multinode component is a LeaderWorkerSet of its own that the operator creates
# and watches; without a bound, one typo (replicas: 100000) makes the operator flood the cluster.
MAX_MULTINODE_REPLICAS = 1000


def check_backend(
    service: DynamoComponentDeploymentSharedSpec,
    declared: BackendFramework | None,
    issues: IssueCollector,
    path: str,
    *,
    inferred: bool = False,
) -> BackendFramework | None:
    """The service's effective backend, reporting a launch command that contradicts the declared
    backend or launches several. ``inferred``: ``declared`` is the backend a graph without
    ``backendFramework`` declares on its components, the one its workers launch."""
    container = service.extra_pod_spec.main_container if service.extra_pod_spec else None
    launched = launched_backends(container)
    if len(launched) > 1:
        names = ", ".join(sorted(launched))
        issues.error(
            join_path(path, "extraPodSpec", "mainContainer"), f"launches several backends: {names}"
        )
        return declared
    if declared is not None and launched and declared not in launched:
        why = (
            f"the graph's workers launch {declared}, the backend all its components declare"
            if inferred
            else f"backendFramework is {declared}"
        )
        issues.error(
            join_path(path, "extraPodSpec", "mainContainer"),
            f"launches dynamo.{next(iter(launched))} but {why}",
        )
    return effective_backend(declared, container)


def validate_service(
    service: DynamoComponentDeploymentSharedSpec,
    path: str,
    backend: BackendFramework | None,
    declared_pvcs: Collection[str] | None,
    issues: IssueCollector,
) -> None:
    _check_ingress(service, path, issues)
    _check_volume_mounts(service, path, backend, declared_pvcs, issues)
    _check_shared_memory(service, path, issues)
    _check_autoscaling(service, path, issues)
    _check_multinode_replicas(service, path, issues)
    check_multinode_launch(service, path, backend, issues)
    _check_unique_env_names(service, path, issues)
    _check_metadata(service, path, issues)
    check_rollout_annotations(service, path, issues)
    check_discovery_backend(service.annotations, join_path(path, "annotations"), issues)
    check_resources(service, path, issues)
    check_pod_overrides(service, path, issues)
    check_experimental(service, path, issues)


def check_multinode_image(
    service: DynamoComponentDeploymentSharedSpec, path: str, issues: IssueCollector
) -> None:
    """A multinode component's main container needs its image (unless a built artifact gives it:
    the caller does not ask then). Upstream refuses to render the LeaderWorkerSet without one;
    its pods would be refused by the API server anyway."""
    main = service.extra_pod_spec.main_container if service.extra_pod_spec else None
    if service.is_multinode and not (main or {}).get("image"):
        issues.error(
            join_path(path, "extraPodSpec", "mainContainer", "image"),
            f"required for a multinode component ({service.node_count} nodes): its leader and "
            "worker pods run it",
            IssueReason.MISSING_REQUIRED_FIELD,
        )


def _check_ingress(
    service: DynamoComponentDeploymentSharedSpec, path: str, issues: IssueCollector
) -> None:
    ingress = service.ingress
    if ingress is not None and ingress.enabled and not ingress.host:
        issues.error(join_path(path, "ingress", "host"), "required when ingress is enabled")


def _check_volume_mounts(
    service: DynamoComponentDeploymentSharedSpec,
    path: str,
    backend: BackendFramework | None,
    declared_pvcs: Collection[str] | None,
    issues: IssueCollector,
) -> None:
    seen: set[str] = set()
    cache_mounts = 0
    for index, mount in enumerate(service.volume_mounts or ()):
        mount_path = join_path(path, "volumeMounts", index)
        if mount.name in seen:
            issues.error(join_path(mount_path, "name"), f"PVC '{mount.name}' is mounted twice")
        seen.add(mount.name)
        if declared_pvcs is not None and mount.name not in declared_pvcs:
            issues.error(
                join_path(mount_path, "name"), f"PVC '{mount.name}' is not declared in spec.pvcs"
            )
        cache_mounts += mount.use_as_compilation_cache
        if mount.mount_point:
            continue
        if not mount.use_as_compilation_cache:
            issues.error(
                join_path(mount_path, "mountPoint"), "required when useAsCompilationCache is false"
            )
        elif backend in (BackendFramework.SGLANG, BackendFramework.TRTLLM):
            issues.error(
                join_path(mount_path, "mountPoint"),
                f"required for a compilation cache with the {backend} backend "
                "(only vLLM has a default path)",
            )
        elif backend is None:
            issues.error(
                join_path(mount_path, "mountPoint"),
                "required for a compilation cache unless backendFramework is vllm "
                "(only vLLM has a default path)",
            )
    if cache_mounts > 1:
        issues.warn(
            join_path(path, "volumeMounts"), "only the first compilation cache mount is used"
        )


def _check_shared_memory(
    service: DynamoComponentDeploymentSharedSpec, path: str, issues: IssueCollector
) -> None:
    shared_memory = service.shared_memory
    if shared_memory is None or shared_memory.disabled:
        return
    size_path = join_path(path, "sharedMemory", "size")
    if not shared_memory.size:
        issues.error(size_path, "required when disabled is false")
    else:
        quantity()(shared_memory.size, size_path, issues)  # an emptyDir sizeLimit is never < 0


def _check_metadata(
    service: DynamoComponentDeploymentSharedSpec, path: str, issues: IssueCollector
) -> None:
    """Labels and annotations that end up on generated objects, pods and ingresses."""
    sources = [("", service.labels, service.annotations)]
    if service.extra_pod_metadata is not None:
        metadata = service.extra_pod_metadata
        sources.append(("extraPodMetadata", metadata.labels, metadata.annotations))
    if service.ingress is not None:
        sources.append(("ingress", service.ingress.labels, service.ingress.annotations))
    for section, labels, notes in sources:
        base = join_path(path, section) if section else path
        check_labels(issues, join_path(base, "labels"), labels)
        check_annotations(issues, join_path(base, "annotations"), notes)


def _check_autoscaling(
    service: DynamoComponentDeploymentSharedSpec, path: str, issues: IssueCollector
) -> None:
    autoscaling = service.autoscaling
    if autoscaling is None or not autoscaling.enabled:
        return
    low, high = autoscaling.min_replicas, autoscaling.max_replicas
    if low is not None and high is not None and low > high:
        issues.error(
            join_path(path, "autoscaling", "minReplicas"),
            f"{low} is greater than maxReplicas {high}",
        )
    if high is None:
        issues.error(
            join_path(path, "autoscaling", "maxReplicas"), "required when autoscaling is enabled"
        )


def _check_multinode_replicas(
    service: DynamoComponentDeploymentSharedSpec, path: str, issues: IssueCollector
) -> None:
    if service.is_multinode and service.effective_replicas > MAX_MULTINODE_REPLICAS:
        issues.error(
            join_path(path, "replicas"),
            f"{service.effective_replicas} is more than {MAX_MULTINODE_REPLICAS}: each replica "
            "of a multinode component is a LeaderWorkerSet of its own",
        )


def _check_unique_env_names(
    service: DynamoComponentDeploymentSharedSpec, path: str, issues: IssueCollector
) -> None:
    seen: set[str] = set()
    for index, env in enumerate(service.envs or ()):
        if env.name in seen:
            issues.error(
                join_path(path, "envs", index, "name"),
                f"duplicate environment variable '{env.name}'",
            )
        seen.add(env.name)
