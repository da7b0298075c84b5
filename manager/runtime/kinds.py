"""Resource kinds: what the API server calls a kind, and how to reach its REST endpoints.

The built-in kinds below are constants; kinds served by CRDs are found by
`manager.runtime.discovery`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "BUILT_IN_KINDS",
    "CONFIG_MAP",
    "CUSTOM_RESOURCE_DEFINITION",
    "DEPLOYMENT",
    "ENDPOINT_SLICE",
    "EVENT",
    "HORIZONTAL_POD_AUTOSCALER",
    "INGRESS",
    "JOB",
    "LEASE",
    "NAMESPACE",
    "PERSISTENT_VOLUME_CLAIM",
    "POD",
    "ROLE",
    "ROLE_BINDING",
    "SECRET",
    "SERVICE",
    "SERVICE_ACCOUNT",
    "ResourceKind",
]


@dataclass(frozen=True, slots=True)
class ResourceKind:
    """A resource type as the API server serves it (`apps/v1` `Deployment` at `deployments`)."""

    api_version: str
    kind: str
    plural: str
    namespaced: bool
    immutable: tuple[str, ...] = ()
    """Top-level fields the API server refuses to change (a RoleBinding's ``roleRef``): an apply
    that would change one replaces the object (`Client.apply_if_changed`)."""
    server_defaulted: tuple[tuple[str, ...], ...] = ()
    """Paths of fields the API server fills in and no field manager owns, which an apply can
    therefore never remove, though a sibling the apply sets may forbid them (a Deployment's
    ``spec.strategy.rollingUpdate`` once ``type`` is ``Recreate``): when the desired object
    lacks one the live object has, `Client.apply_if_changed` clears it first."""

    @property
    def group(self) -> str:
        """The API group; "" for the core group (`v1`)."""
        group, _, _ = self.api_version.rpartition("/")
        return group

    @property
    def version(self) -> str:
        return self.api_version.rpartition("/")[2]

    @property
    def api_prefix(self) -> str:
        """`/api/v1` for the core group, `/apis/<group>/<version>` otherwise."""
        return f"/apis/{self.api_version}" if self.group else f"/api/{self.api_version}"

    def collection_path(self, namespace: str | None = None) -> str:
        """The URL of the collection; all namespaces when `namespace` is None."""
        if self.namespaced and namespace:
            return f"{self.api_prefix}/namespaces/{namespace}/{self.plural}"
        return f"{self.api_prefix}/{self.plural}"

    def object_path(self, namespace: str | None, name: str, subresource: str | None = None) -> str:
        path = f"{self.collection_path(namespace if self.namespaced else None)}/{name}"
        return f"{path}/{subresource}" if subresource else path

    def __str__(self) -> str:
        return f"{self.kind}.{self.api_version}"


CONFIG_MAP = ResourceKind("v1", "ConfigMap", "configmaps", namespaced=True)
SECRET = ResourceKind("v1", "Secret", "secrets", namespaced=True)
NAMESPACE = ResourceKind("v1", "Namespace", "namespaces", namespaced=False)
EVENT = ResourceKind("v1", "Event", "events", namespaced=True)
POD = ResourceKind("v1", "Pod", "pods", namespaced=True)
SERVICE = ResourceKind("v1", "Service", "services", namespaced=True)
SERVICE_ACCOUNT = ResourceKind("v1", "ServiceAccount", "serviceaccounts", namespaced=True)
PERSISTENT_VOLUME_CLAIM = ResourceKind(
    "v1", "PersistentVolumeClaim", "persistentvolumeclaims", namespaced=True
)
DEPLOYMENT = ResourceKind(
    "apps/v1",
    "Deployment",
    "deployments",
    namespaced=True,
    server_defaulted=(("spec", "strategy", "rollingUpdate"),),
)
JOB = ResourceKind("batch/v1", "Job", "jobs", namespaced=True)
HORIZONTAL_POD_AUTOSCALER = ResourceKind(
    "autoscaling/v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers", namespaced=True
)
INGRESS = ResourceKind("networking.k8s.io/v1", "Ingress", "ingresses", namespaced=True)
ENDPOINT_SLICE = ResourceKind(
    "discovery.k8s.io/v1", "EndpointSlice", "endpointslices", namespaced=True
)
LEASE = ResourceKind("coordination.k8s.io/v1", "Lease", "leases", namespaced=True)
ROLE = ResourceKind("rbac.authorization.k8s.io/v1", "Role", "roles", namespaced=True)
ROLE_BINDING = ResourceKind(
    "rbac.authorization.k8s.io/v1",
    "RoleBinding",
    "rolebindings",
    namespaced=True,
    immutable=("roleRef",),
)
CUSTOM_RESOURCE_DEFINITION = ResourceKind(
    "apiextensions.k8s.io/v1",
    "CustomResourceDefinition",
    "customresourcedefinitions",
    namespaced=False,
)

BUILT_IN_KINDS: tuple[ResourceKind, ...] = (
    CONFIG_MAP,
    SECRET,
    NAMESPACE,
    EVENT,
    POD,
    SERVICE,
    SERVICE_ACCOUNT,
    PERSISTENT_VOLUME_CLAIM,
    DEPLOYMENT,
    JOB,
    HORIZONTAL_POD_AUTOSCALER,
    INGRESS,
    ENDPOINT_SLICE,
    LEASE,
    ROLE,
    ROLE_BINDING,
    CUSTOM_RESOURCE_DEFINITION,
)
"""Kinds every supported Kubernetes version serves: no discovery needed to use them."""
