"""The v1alpha1 schema accepts upstream's experimental service fields in every upstream form, so
that a graph copied from upstream reaches validation's reason instead of "unknown field"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from dynamo_operator.api import DynamoComponentDeploymentSharedSpec, DynamoGraphDeployment
from dynamo_operator.api.experimental import CheckpointSpec, FailoverSpec, GPUMemoryServiceSpec
from dynamo_operator.validation.unknown_fields import crd_schema, find_unknown_fields

EXAMPLES = sorted(
    (Path(__file__).parents[1] / "validation" / "upstream_experimental").glob("*.v1alpha1.yaml")
)


def load(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(path.read_text())
    return document


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_each_upstream_example_parses_and_writes_back_unchanged(path: Path) -> None:
    document = load(path)

    assert DynamoGraphDeployment.model_validate(document).to_wire()["spec"] == document["spec"]
    assert find_unknown_fields(document, "DynamoGraphDeployment") == []


def test_the_blocks_read_as_typed_fields() -> None:
    service = DynamoComponentDeploymentSharedSpec.model_validate(
        {
            "gpuMemoryService": {"enabled": True, "mode": "intraPod"},
            "failover": {"enabled": True, "numShadows": 1},
            "checkpoint": {"enabled": False, "checkpointRef": "snapshot"},
        }
    )

    assert service.gpu_memory_service == GPUMemoryServiceSpec(enabled=True, mode="intraPod")
    assert service.failover == FailoverSpec(enabled=True, num_shadows=1)
    assert service.checkpoint == CheckpointSpec(enabled=False, checkpoint_ref="snapshot")


def test_fields_of_other_upstream_releases_are_kept_in_each_block() -> None:
    """Upstream adds fields to these blocks in most releases (extraClientContainers, startupPolicy,
    identity.framework...): the API server keeps them and so does the model."""
    document = {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g"},
        "spec": {
            "services": {
                "W": {
                    "gpuMemoryService": {"enabled": True, "extraClientContainers": ["client"]},
                    "failover": {"enabled": False, "future": {"a": 1}},
                    "checkpoint": {"enabled": True, "identity": {"framework": "vllm"}},
                }
            }
        },
    }

    assert find_unknown_fields(document, "DynamoGraphDeployment") == []
    assert DynamoGraphDeployment.model_validate(document).to_wire()["spec"] == document["spec"]


def test_the_crd_keeps_every_field_of_the_blocks_and_types_enabled_as_a_boolean() -> None:
    for kind, spec in (
        ("DynamoGraphDeployment", _service_schema()),
        (
            "DynamoComponentDeployment",
            crd_schema("DynamoComponentDeployment")["properties"]["spec"],
        ),
    ):
        for name in ("gpuMemoryService", "failover", "checkpoint"):
            block = spec["properties"][name]
            assert block["x-kubernetes-preserve-unknown-fields"] is True, (kind, name)
            assert block["properties"]["enabled"]["type"] == "boolean", (kind, name)


@pytest.mark.parametrize("value", ["true", 1, "yes"])
def test_enabled_must_be_a_boolean_as_the_api_server_says(value: Any) -> None:
    with pytest.raises(ValidationError) as raised:
        DynamoComponentDeploymentSharedSpec.model_validate({"gpuMemoryService": {"enabled": value}})

    assert raised.value.errors()[0]["loc"] == ("gpuMemoryService", "enabled")


def _service_schema() -> dict[str, Any]:
    spec = crd_schema("DynamoGraphDeployment")["properties"]["spec"]
    service: dict[str, Any] = spec["properties"]["services"]["additionalProperties"]
    return service
