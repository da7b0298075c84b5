"""The v1beta1 schema accepts a component's ``experimental`` block in upstream's forms."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from dynamo_operator.api import v1beta1
from dynamo_operator.api.constants import BETA_VERSION
from dynamo_operator.api.v1beta1.experimental import Checkpoint, Experimental, GPUMemoryService
from dynamo_operator.validation.unknown_fields import crd_schema, find_unknown_fields

EXAMPLES = sorted(
    (Path(__file__).parents[2] / "validation" / "upstream_experimental").glob("*.v1beta1.yaml")
)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_each_upstream_example_parses_and_writes_back_unchanged(path: Path) -> None:
    document: dict[str, Any] = yaml.safe_load(path.read_text())

    graph = v1beta1.DynamoGraphDeployment.model_validate(document)

    assert graph.to_wire()["spec"] == document["spec"]
    assert find_unknown_fields(document, "DynamoGraphDeployment", BETA_VERSION) == []


def test_an_empty_block_is_present_and_the_newest_fields_are_typed() -> None:
    component = v1beta1.Component.model_validate(
        {
            "name": "w",
            "experimental": {
                "gpuMemoryService": {},
                "checkpoint": {"enabled": True, "startupPolicy": "WaitForCheckpoint"},
            },
        }
    )

    assert component.experimental == Experimental(
        gpu_memory_service=GPUMemoryService(),
        checkpoint=Checkpoint(enabled=True, startup_policy="WaitForCheckpoint"),
    )
    assert component.to_wire()["experimental"]["gpuMemoryService"] == {}


def test_the_crd_keeps_every_field_of_the_blocks_but_not_unknown_experimental_features() -> None:
    components = crd_schema("DynamoGraphDeployment", BETA_VERSION)["properties"]["spec"][
        "properties"
    ]["components"]
    experimental = components["items"]["properties"]["experimental"]

    assert "x-kubernetes-preserve-unknown-fields" not in experimental
    for name in ("gpuMemoryService", "failover", "checkpoint"):
        assert experimental["properties"][name]["x-kubernetes-preserve-unknown-fields"] is True
    document = {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g"},
        "spec": {"components": [{"name": "w", "experimental": {"grove": {}}}]},
    }
    assert find_unknown_fields(document, "DynamoGraphDeployment", BETA_VERSION) == [
        "spec.components[0].experimental.grove"
    ]
