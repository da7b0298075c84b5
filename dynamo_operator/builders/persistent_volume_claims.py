"""PersistentVolumeClaims a graph asks the operator to create (``pvcs[]`` with ``create: true``).

Claims without ``create`` must already exist; the operator only mounts them. Created claims hold
data (model weights, compilation caches), so no graph owns them: deleting the graph keeps them.
A user removes them with
``kubectl delete pvc -l nvidia.com/dynamo-graph-deployment-name=<graph>``.
The operator creates a missing claim and never updates or resizes an existing one.
"""

from __future__ import annotations

from dynamo_operator.api import DynamoGraphDeployment
from dynamo_operator.builders.context import BuildContext
from dynamo_operator.builders.graph import Graph
from dynamo_operator.builders.merge import JsonDict
from dynamo_operator.builders.metadata import object_metadata
from dynamo_operator.constants import Labels


def build_persistent_volume_claims(
    dgd: DynamoGraphDeployment, context: BuildContext
) -> list[JsonDict]:
    """The claims to create, sorted by name."""
    graph = Graph.from_model(dgd, context.default_namespace)
    claims: list[JsonDict] = []
    for pvc in graph.spec.get("pvcs") or ():
        if not pvc.get("create"):
            continue
        claims.append(
            {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": object_metadata(
                    graph,
                    pvc["name"],
                    {Labels.GRAPH_DEPLOYMENT_NAME: graph.name},
                    {},
                    owned=False,
                ),
                "spec": _claim_spec(pvc),
            }
        )
    claims.sort(key=lambda claim: str(claim["metadata"].get("name")))
    return claims


def _claim_spec(pvc: JsonDict) -> JsonDict:
    spec: JsonDict = {"accessModes": [pvc["volumeAccessMode"]]}
    # Only a claim expanded from a service-level `pvc` may lack a class: the cluster's default.
    if pvc.get("storageClass"):
        spec["storageClassName"] = pvc["storageClass"]
    spec["resources"] = {"requests": {"storage": str(pvc["size"])}}
    return spec
