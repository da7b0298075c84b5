"""Which service account a component's pods run as, and the accounts the operator makes for them.

Planners scale the graph through the Kubernetes API, so their pods run as
``planner-serviceaccount``, which the cluster binds to the planner's role. With Kubernetes
discovery every other component runs as its namespace's discovery account,
``dynamo-k8s-discovery``, allowed exactly what Dynamo's runtime asks of the API server (publish
its DynamoWorkerMetadata, watch the others' and the EndpointSlices that say which are ready);
with etcd discovery, as its namespace's default. Like the planner's account it is shared by the
namespace's graphs, so no graph owns it (an account owned by each of them grew with every graph:
a namespace of 2,000 graphs rewrote an account of 2,000 owner references 2,000 times) and it
outlives them, as the namespace's default account does. One account per namespace instead of
one per graph (as upstream has it) is two objects fewer to write per graph.

Earlier releases made one account per graph, ``<graph>-k8s-service-discovery``, owned by it: a
component whose live pods run as it keeps it (``kept_discovery_account``), so upgrading the
operator rolls no pod; it goes with its graph. A ``serviceAccountName`` in ``extraPodSpec``
always wins. The rule is asked in two places: a graph forces it into its planner DCDs
(``extraPodSpec.serviceAccountName``, as the upstream operator does), and the pod template
defaults it for a planner DCD written directly, where the user's ``extraPodSpec`` may still
override it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from dynamo_operator.api import (
    GROUP,
    KIND_GRAPH_DEPLOYMENT,
    DynamoGraphDeployment,
    reference_api_version,
)
from dynamo_operator.api.constants import ComponentType
from dynamo_operator.builders.merge import JsonDict, copy_json
from dynamo_operator.constants import (
    DISCOVERY_ACCOUNT_NAME,
    DISCOVERY_ACCOUNT_SUFFIX,
    MANAGED_BY_OPERATOR,
    PLANNER_SERVICE_ACCOUNT_NAME,
    Labels,
)
from dynamo_operator.settings import DiscoveryBackend


def discovery_account_name(owner_name: str) -> str:
    """The discovery account earlier releases made for a graph (or standalone component) named
    ``owner_name``."""
    return f"{owner_name}{DISCOVERY_ACCOUNT_SUFFIX}"


def component_service_account(
    component_type: str | None,
    discovery_backend: DiscoveryBackend | None = None,
    kept_discovery_account: str | None = None,
) -> str | None:
    """The service account a component of this type runs as, or None for the namespace default.
    Without ``discovery_backend``: only what the type requires (the planner's account). With
    Kubernetes discovery: ``kept_discovery_account`` when given, else the namespace's."""
    if component_type == ComponentType.PLANNER:
        return PLANNER_SERVICE_ACCOUNT_NAME
    if discovery_backend == "kubernetes":
        return kept_discovery_account or DISCOVERY_ACCOUNT_NAME
    return None


def kept_discovery_account(
    dcd: Mapping[str, Any], workloads: Iterable[Mapping[str, Any]]
) -> str | None:
    """The account of one graph an earlier release made for ``dcd`` (wire form), when the pod
    templates of its live ``workloads`` run as it: kept, so that the upgrade rolls no pod. A
    workload made again runs as the namespace's account."""
    metadata = dcd["metadata"]
    owner = discovery_owner_name(metadata["name"], metadata.get("ownerReferences") or ())
    account = discovery_account_name(owner)
    return account if account in pod_service_accounts(workloads) else None


def pod_service_accounts(workloads: Iterable[Mapping[str, Any]]) -> set[str]:
    """The accounts the pods of ``workloads`` run as: the ``serviceAccountName`` of each pod
    template (a Deployment's one, a LeaderWorkerSet's leader and worker templates)."""
    accounts = set()
    for workload in workloads:
        spec = workload.get("spec") or {}
        group = spec.get("leaderWorkerTemplate") or {}
        for template in (
            spec.get("template"),
            group.get("leaderTemplate"),
            group.get("workerTemplate"),
        ):
            account = ((template or {}).get("spec") or {}).get("serviceAccountName")
            if isinstance(account, str):
                accounts.add(account)
    return accounts


DISCOVERY_RULES: tuple[JsonDict, ...] = (
    {
        "apiGroups": [GROUP],
        "resources": ["dynamoworkermetadatas"],
        "verbs": ["list", "watch", "create", "patch"],
    },
    {
        "apiGroups": ["discovery.k8s.io"],
        "resources": ["endpointslices"],
        "verbs": ["list", "watch"],
    },
)
"""What Dynamo's runtime does with Kubernetes discovery: each worker server-side-applies its
DynamoWorkerMetadata (the first apply creates it: RBAC asks for create as well as patch, a real
worker was refused without it); the frontend lists and watches them and the EndpointSlices of
discoverable Services."""


def build_discovery_service_account(namespace: str) -> JsonDict:
    """The discovery account of ``namespace``, owned by no graph (it serves them all)."""
    metadata = _managed_metadata(namespace, DISCOVERY_ACCOUNT_NAME)
    return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": metadata}


def build_kept_discovery_account(namespace: str, owner: Mapping[str, Any]) -> JsonDict:
    """The account of one graph (``kept_discovery_account``) of ``owner`` (``discovery_owner``),
    owned by it so it goes with it."""
    metadata = _managed_metadata(namespace, discovery_account_name(str(owner["name"])))
    metadata["ownerReferences"] = [dict(owner)]
    return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": metadata}


def discovery_owner(dcd: Mapping[str, Any]) -> JsonDict:
    """Who owns the kept account of one graph for a component: its graph (its controller), or
    the component itself when it has none."""
    metadata = dcd["metadata"]
    graph = _controlling_graph(metadata.get("ownerReferences") or ())
    owner = _owner_reference(graph if graph is not None else {**metadata, "kind": dcd["kind"]})
    # At the version the garbage collector observes the kind at, whichever version the
    # component's (older) reference to its graph names.
    return {"apiVersion": reference_api_version(str(owner["kind"])), **owner}


def discovery_owner_name(name: str, owner_references: Iterable[Mapping[str, Any]]) -> str:
    """The name of ``discovery_owner`` for the component ``name`` with these references."""
    graph = _controlling_graph(owner_references)
    return str(graph["name"]) if graph is not None else name


def _controlling_graph(references: Iterable[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    for reference in references:
        if reference.get("controller") and reference.get("kind") == KIND_GRAPH_DEPLOYMENT:
            return reference
    return None


def _owner_reference(source: Mapping[str, Any]) -> JsonDict:
    return {key: source[key] for key in ("apiVersion", "kind", "name", "uid") if source.get(key)}


def discovery_role_name(account_name: str) -> str:
    """The Role of a discovery account, when it has its own (no ``discovery_cluster_role_name``)."""
    return f"{account_name}-role"


def build_discovery_access(
    namespace: str, service_account: Mapping[str, Any], cluster_role_name: str | None = None
) -> list[JsonDict]:
    """What lets a discovery account do ``DISCOVERY_RULES``, owned by it (built from its live
    copy: the owner reference needs its uid, left out when unknown), so it goes when it goes: a
    RoleBinding to ``cluster_role_name`` (the chart installs that ClusterRole once for every
    graph), or, without one, a Role of the account's own and its RoleBinding, as the upstream
    operator has it (one object more per graph)."""
    name = str(service_account["metadata"]["name"])
    account = {**service_account["metadata"], "apiVersion": "v1", "kind": "ServiceAccount"}
    owners = [_owner_reference(account)]
    objects: list[JsonDict] = []
    if cluster_role_name:
        role_ref = {"kind": "ClusterRole", "name": cluster_role_name}
    else:
        role_ref = {"kind": "Role", "name": discovery_role_name(name)}
        role_metadata = _managed_metadata(namespace, role_ref["name"])
        objects.append(
            {
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "Role",
                "metadata": {**role_metadata, "ownerReferences": copy_json(owners)},
                "rules": copy_json(list(DISCOVERY_RULES)),
            }
        )
    binding: JsonDict = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": {
            **_managed_metadata(namespace, f"{name}-binding"),
            "ownerReferences": copy_json(owners),
        },
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", **role_ref},
        "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": namespace}],
    }
    return [*objects, binding]


def _managed_metadata(namespace: str, name: str) -> JsonDict:
    return {
        "name": name,
        "namespace": namespace,
        "labels": {Labels.MANAGED_BY: MANAGED_BY_OPERATOR},
    }


def build_planner_access(
    dgd: DynamoGraphDeployment, namespace: str, planner_cluster_role_name: str | None
) -> list[JsonDict]:
    """The ServiceAccount planners run as, and its RoleBinding to ``planner_cluster_role_name``
    when the operator was given one; nothing when the graph has no planner.

    Both are shared by every graph of the namespace, so no graph owns them: they carry the
    managed-by label instead and outlive any one graph.
    """
    if not any(
        service.component_type == ComponentType.PLANNER for service in dgd.spec.services.values()
    ):
        return []
    metadata = _managed_metadata(namespace, PLANNER_SERVICE_ACCOUNT_NAME)
    objects: list[JsonDict] = [{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": metadata}]
    if planner_cluster_role_name:
        objects.append(
            {
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "RoleBinding",
                "metadata": dict(metadata),
                "roleRef": {
                    "apiGroup": "rbac.authorization.k8s.io",
                    "kind": "ClusterRole",
                    "name": planner_cluster_role_name,
                },
                "subjects": [
                    {
                        "kind": "ServiceAccount",
                        "name": PLANNER_SERVICE_ACCOUNT_NAME,
                        "namespace": namespace,
                    }
                ],
            }
        )
    return objects
