"""Small constructors of component deployments for builder tests (validated through the models)."""

from __future__ import annotations

from typing import Any

from dynamo_operator.api import DynamoComponentDeployment
from dynamo_operator.builders import BuildContext
from dynamo_operator.builders.component import Component
from dynamo_operator.settings import OperatorSettings

IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.0"


def dcd_model(name: str = "g-worker", **spec: Any) -> DynamoComponentDeployment:
    return DynamoComponentDeployment.model_validate(
        {
            "apiVersion": "nvidia.com/v1alpha1",
            "kind": "DynamoComponentDeployment",
            "metadata": {
                "name": name,
                "namespace": "ns",
                "uid": "uid-1",
                "ownerReferences": [
                    {
                        "apiVersion": "nvidia.com/v1alpha1",
                        "kind": "DynamoGraphDeployment",
                        "name": "g",
                    }
                ],
            },
            "spec": spec,
        }
    )


def component(name: str = "g-worker", **spec: Any) -> Component:
    return Component.from_model(dcd_model(name, **spec), "default")


def context(**settings: Any) -> BuildContext:
    return BuildContext(settings=OperatorSettings(**settings))


def multinode_worker(
    backend: str, *, gpus: int = 8, node_count: int = 2, args: list[str] | None = None
) -> Component:
    return component(
        componentType="worker",
        backendFramework=backend,
        multinode={"nodeCount": node_count},
        resources={"limits": {"gpu": str(gpus)}},
        extraPodSpec={
            "mainContainer": {
                "image": IMAGE,
                "command": ["python3", "-m", f"dynamo.{backend}"],
                "args": args or [],
            }
        },
    )
