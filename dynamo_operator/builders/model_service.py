"""The headless Service of a base model, through which DynamoModels find the workers serving it.

A component that declares ``modelRef`` labels its serving pods (single-node pods and multinode
leaders: the workers of a multinode group run no Dynamo system server) with
``nvidia.com/dynamo-base-model-hash: <h>`` (``h`` from ``naming.base_model_hash``) and the full
name in the ``nvidia.com/dynamo-base-model`` annotation, and gets the Service
``dynamo-model-<h>``: headless, selecting that label, port ``system`` 9090, ready pods only. The
cluster publishes its EndpointSlices with the Service's labels, hash included, which is what the
DynamoModel controller lists and watches.

The name depends only on the base model, and several components commonly serve one (the prefill
and decode workers of a graph, two graphs in a namespace), so the Service is shared: every
serving component is an owner (not the controller: there can be only one), and each of them
builds the same object from ``BuildContext.model_service_owners``, the owners of every component
serving that model in the namespace. Whichever component is reconciled writes that same object,
so none undoes another's write, and garbage collection deletes the Service with its last owner.
The Service carries ``nvidia.com/selector`` (its own name) because the operator caches only the
Services with that label.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from dynamo_operator.api import KIND_COMPONENT_DEPLOYMENT, reference_api_version
from dynamo_operator.builders.component import Component
from dynamo_operator.builders.context import BuildContext, ModelServiceOwners
from dynamo_operator.builders.merge import JsonDict
from dynamo_operator.constants import MANAGED_BY_OPERATOR, Annotations, Labels, PortNames, Ports
from dynamo_operator.naming import base_model_hash, model_service_name

_SERVING_ROLES = frozenset({"main", "leader"})


def serving_reference(name: str, uid: str | None) -> JsonDict:
    """An ownerReference to a component serving a base model (not a controller reference)."""
    reference: JsonDict = {
        "apiVersion": reference_api_version(KIND_COMPONENT_DEPLOYMENT),
        "kind": KIND_COMPONENT_DEPLOYMENT,
        "name": name,
    }
    if uid:
        reference["uid"] = uid
    return reference


def served_base_model(dcd: Mapping[str, Any]) -> str | None:
    """The base model a component (a DCD in wire form) declares in ``spec.modelRef``, if any."""
    model_ref = (dcd.get("spec") or {}).get("modelRef") or {}
    base_model = model_ref.get("name") if isinstance(model_ref, Mapping) else None
    return str(base_model) if base_model else None


def model_service_key(namespace: str, base_model: str) -> str:
    """One string for (namespace, base model): what a cache index of the components sharing a
    model's Service files each one under, so a component finds its co-owners without reading
    every component of its namespace."""
    return f"{namespace}/{base_model}"


def build_model_service_owners(
    components: Iterable[Mapping[str, Any]], *, default_namespace: str = "default"
) -> dict[tuple[str, str], tuple[JsonDict, ...]]:
    """Who shares each base model's Service: (namespace, base model) -> the references of the
    components (DCDs in wire form) that declare it, sorted by name; components being deleted
    are left out."""
    owners: dict[tuple[str, str], dict[str, JsonDict]] = {}
    for dcd in components:
        metadata = dcd.get("metadata") or {}
        name, base_model = metadata.get("name"), served_base_model(dcd)
        if not name or not base_model or metadata.get("deletionTimestamp"):
            continue
        key = (str(metadata.get("namespace") or default_namespace), base_model)
        owners.setdefault(key, {})[str(name)] = serving_reference(str(name), metadata.get("uid"))
    return {key: tuple(refs[name] for name in sorted(refs)) for key, refs in owners.items()}


def build_shared_model_service(
    base_model_name: str, namespace: str, owners: Sequence[Mapping[str, Any]]
) -> JsonDict:
    """The Service ``dynamo-model-<hash>`` of ``base_model_name``, owned by ``owners``."""
    name = model_service_name(base_model_name)
    model_hash = base_model_hash(base_model_name)
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {
                Labels.BASE_MODEL_HASH: model_hash,
                Labels.MANAGED_BY: MANAGED_BY_OPERATOR,
                Labels.SELECTOR: name,
            },
            "annotations": {Annotations.BASE_MODEL: base_model_name},
            "ownerReferences": [dict(owner) for owner in owners],
        },
        "spec": {
            "clusterIP": "None",
            "selector": {Labels.BASE_MODEL_HASH: model_hash},
            # Ready pods only: the default. Not spelled out as `publishNotReadyAddresses: false`,
            # which the API server omits (omitempty): compare-before-apply would see a difference
            # every time and write the Service at every reconcile of every serving component.
            "ports": [
                {
                    "name": PortNames.SYSTEM,
                    "port": Ports.SYSTEM,
                    "targetPort": Ports.SYSTEM,
                    "protocol": "TCP",
                }
            ],
        },
    }


def build_model_service(component: Component, context: BuildContext) -> JsonDict | None:
    """The component's share of its base model's Service; None without ``modelRef``."""
    base_model = component.base_model_name
    if base_model is None:
        return None
    return build_shared_model_service(
        base_model,
        component.namespace,
        _owners(component, base_model, context.model_service_owners),
    )


def _owners(
    component: Component, base_model: str, index: ModelServiceOwners
) -> list[Mapping[str, Any]]:
    """The index's owners with this component in them (as it is now: the index may be older)."""
    others = [
        owner
        for owner in index.get((component.namespace, base_model), ())
        if owner.get("name") != component.name
    ]
    own = serving_reference(component.name, component.uid)
    return sorted([*others, own], key=lambda owner: str(owner.get("name")))


def serving_pod_metadata(component: Component, role: str) -> tuple[dict[str, str], dict[str, str]]:
    """The label and annotation that put a pod of ``role`` behind its base model's Service."""
    base_model = component.base_model_name
    if base_model is None or role not in _SERVING_ROLES:
        return {}, {}
    return (
        {Labels.BASE_MODEL_HASH: base_model_hash(base_model)},
        {Annotations.BASE_MODEL: base_model},
    )
