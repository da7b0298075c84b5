"""Condition types and reasons the operator writes: the one list of them.

Component deployments (DCDs) carry ``Available`` and ``DynamoComponentReady``; graph deployments
(DGDs) carry ``Ready``; DynamoModels carry ``ServicesFound`` and ``EndpointsReady`` (with the
upstream operator's reasons); DynamoComponents carry ``ImageExistsChecked``, ``ImageExists``,
``ImageBuilding`` and ``DynamoComponentAvailable`` (upstream's types). The DGD reasons are the
upstream operator's snake_case strings, which existing dashboards and scripts match on; the
others are CamelCase as Kubernetes conditions usually are. A not-ready reason names the cause
when it is known (a pod that cannot be scheduled, an image that cannot be pulled, a crash loop,
a stalled rollout), not merely "not ready".
"""

from __future__ import annotations

from typing import Final


class ConditionTypes:
    AVAILABLE: Final = "Available"
    """DCD: the component's workload is fully rolled out and serving."""
    COMPONENT_READY: Final = "DynamoComponentReady"
    """DCD: the same verdict as Available, under the name upstream tooling reads."""
    READY: Final = "Ready"
    """DGD: every resource of the graph is ready (state ``successful``)."""
    SERVICES_FOUND: Final = "ServicesFound"
    """DynamoModel: EndpointSlices of the base model's Services exist."""
    ENDPOINTS_READY: Final = "EndpointsReady"
    """DynamoModel: the model is usable on every worker (a LoRA: loaded on each)."""
    IMAGE_EXISTS_CHECKED: Final = "ImageExistsChecked"
    """DynamoComponent: the registry answered whether the image exists."""
    IMAGE_EXISTS: Final = "ImageExists"
    """DynamoComponent: the image is in the registry; the message is the image."""
    IMAGE_BUILDING: Final = "ImageBuilding"
    """DynamoComponent: a builder Job is building the image."""
    COMPONENT_AVAILABLE: Final = "DynamoComponentAvailable"
    """DynamoComponent: its image can be deployed (upstream's main condition of the kind)."""


class Reasons:
    # Component deployment, single-node (Deployment).
    DEPLOYMENT_READY: Final = "DeploymentReady"
    DEPLOYMENT_NOT_READY: Final = "DeploymentNotReady"
    PROGRESS_DEADLINE_EXCEEDED: Final = "ProgressDeadlineExceeded"
    # Component deployment, multinode (LeaderWorkerSets).
    LEADER_WORKER_SETS_READY: Final = "AllLeaderWorkerSetsReady"
    LEADER_WORKER_SETS_NOT_READY: Final = "SomeLeaderWorkerSetsNotReady"
    LEADER_WORKER_SET_UNAVAILABLE: Final = "LeaderWorkerSetUnavailable"
    """The component is multinode and the cluster serves no LeaderWorkerSet API."""
    # Causes read from the component's pods.
    UNSCHEDULABLE: Final = "Unschedulable"
    IMAGE_PULL_FAILED: Final = "ImagePullFailed"
    CONTAINER_CONFIG_ERROR: Final = "ContainerConfigError"
    CRASH_LOOP: Final = "CrashLoop"
    # Both kinds: the object itself cannot be acted on.
    VALIDATION_FAILED: Final = "ValidationFailed"
    # DynamoModel (upstream spellings).
    SERVICES_FOUND: Final = "ServicesFound"
    NO_SERVICES_FOUND: Final = "NoServicesFound"
    ALL_ENDPOINTS_READY: Final = "AllEndpointsReady"
    ENDPOINTS_DISCOVERED: Final = "EndpointsDiscovered"
    ENDPOINTS_NOT_READY: Final = "NotReady"
    NO_ENDPOINTS: Final = "NoEndpoints"
    # DynamoComponent: where its image stands.
    IMAGE_GIVEN: Final = "ImageGiven"
    IMAGE_FOUND: Final = "ImageFound"
    IMAGE_NOT_FOUND: Final = "ImageNotFound"
    CHECKING_IMAGE: Final = "CheckingImage"
    REGISTRY_CHECK_FAILED: Final = "RegistryCheckFailed"
    BUILD_NOT_STARTED: Final = "BuildNotStarted"
    BUILD_PENDING: Final = "BuildPending"
    BUILDING: Final = "Building"
    BUILD_SUCCEEDED: Final = "BuildSucceeded"
    BUILD_FAILED: Final = "BuildFailed"
    BUILD_TIMED_OUT: Final = "BuildTimedOut"
    # Graph deployment waiting for (or failed by) its DynamoComponent.
    DYNAMO_COMPONENT_NOT_READY: Final = "DynamoComponentNotReady"
    # Graph deployment (upstream spellings).
    ALL_RESOURCES_READY: Final = "all_resources_are_ready"
    SOME_RESOURCES_NOT_READY: Final = "some_resources_are_not_ready"
    RECONCILE_FAILED: Final = "failed_to_reconcile_the_resources"


ALL_RESOURCES_READY_MESSAGE: Final = "All resources are ready"
RESOURCES_NOT_READY_PREFIX: Final = "Resources not ready: "
