"""Seed 000's per-service ``pvc`` in the later API's terms, before anything is built.

``services.X.pvc: {name, mountPath, size}`` becomes ``services.X.volumeMounts[{name, mountPoint}]``
and, unless ``spec.pvcs`` already declares the claim, a ``spec.pvcs`` entry that creates it:
its size, ``volumeAccessMode`` ReadWriteOnce unless given, and the storage class given or the
cluster's default (the one difference from a ``spec.pvcs`` entry written by hand, which must name
its class). Like every created claim, it outlives the graph, so a new artifact version keeps its
data. The graph is returned expanded; the builders never see ``pvc``.
"""

from __future__ import annotations

from typing import Any, Final

from dynamo_operator.api import PVC, DynamoGraphDeployment
from dynamo_operator.image_build.errors import ArtifactExpansionError

DEFAULT_ACCESS_MODE: Final = "ReadWriteOnce"


def has_service_pvcs(graph: DynamoGraphDeployment) -> bool:
    return any(service.pvc is not None for service in graph.spec.services.values())


def expand_service_pvcs(graph: DynamoGraphDeployment) -> DynamoGraphDeployment:
    """``graph`` with every service-level ``pvc`` turned into a mount and, when undeclared, a
    created claim; ``graph`` itself when no service has one. Never mutates ``graph``.

    Raises ArtifactExpansionError for a claim to create without a size (validation refuses it).
    """
    if not has_service_pvcs(graph):
        return graph
    wire = graph.to_wire()
    declared = {pvc.name for pvc in graph.spec.pvcs or ()}
    created: dict[str, PVC] = {}
    for service_name, service in wire["spec"]["services"].items():
        claim = service.pop("pvc", None)
        if claim is None:
            continue
        mount = {"name": claim["name"], "mountPoint": claim["mountPath"]}
        service["volumeMounts"] = [*(service.get("volumeMounts") or ()), mount]
        if claim["name"] in declared or claim["name"] in created:
            continue
        if claim.get("size") is None:
            raise ArtifactExpansionError(
                f"spec.services.{service_name}.pvc.size: required to create claim "
                f"{claim['name']!r} (or declare it in spec.pvcs)"
            )
        created[claim["name"]] = _created_claim(claim)
    expanded = DynamoGraphDeployment.model_validate(wire)
    # Built without validation: PVC's rule wants a storage class, which this form may leave to
    # the cluster's default.
    expanded.spec.pvcs = [*(expanded.spec.pvcs or ()), *created.values()]
    return expanded


def _created_claim(claim: dict[str, Any]) -> PVC:
    return PVC.model_construct(
        create=True,
        name=claim["name"],
        size=str(claim["size"]),
        storage_class=claim.get("storageClass"),
        volume_access_mode=claim.get("volumeAccessMode") or DEFAULT_ACCESS_MODE,
    )
