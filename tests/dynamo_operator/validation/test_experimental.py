"""Upstream's experimental fields are refused, with the reason, wherever a spec is judged.

The inputs under ``upstream_experimental/`` are upstream Dynamo's example graphs that use them
(four v1alpha1, four v1beta1), rebuilt in upstream's structure; each names the errors it must get
in ``# expected-error:`` lines. What a user sees: ``kubectl apply`` denied by admission (or
``dynamo-operator validate``) at the field they wrote, saying what the feature needs; a graph that
got in without the webhook marked failed in its status, with the same words.
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from dynamo_operator.render import render_objects
from dynamo_operator.settings import OperatorSettings
from dynamo_operator.status import derive_graph_status
from dynamo_operator.status.failure import StatusFailure
from dynamo_operator.validation import validate_create, validate_manifest, validate_update
from dynamo_operator.validation.experimental import (
    CHECKPOINT_REFUSED,
    FAILOVER_REFUSED,
    GPU_MEMORY_SERVICE_REFUSED,
)
from tests.fixtures import expected_error_paths

EXAMPLES = sorted((Path(__file__).parent / "upstream_experimental").glob("*.yaml"))
EXAMPLES_BY_NAME = {path.stem: path for path in EXAMPLES}
REASONS = {
    "gpuMemoryService": GPU_MEMORY_SERVICE_REFUSED,
    "failover": FAILOVER_REFUSED,
    "checkpoint": CHECKPOINT_REFUSED,
}


def load(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(path.read_text())
    return document


def reason_for(path: str) -> str:
    return REASONS[path.rsplit(".", 1)[-1]]


def without_experimental(document: dict[str, Any]) -> dict[str, Any]:
    stripped = copy.deepcopy(document)
    spec = stripped["spec"]
    for entry in spec.get("components") or spec.get("services", {}).values():
        for name in ("experimental", *REASONS):
            entry.pop(name, None)
    return stripped


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_each_upstream_example_is_refused_at_its_experimental_fields_with_the_reason(
    path: Path,
) -> None:
    result = validate_manifest(load(path))

    assert [issue.path for issue in result.errors] == expected_error_paths(path)
    assert [issue.message for issue in result.errors] == [
        reason_for(issue.path) for issue in result.errors
    ]
    assert result.warnings == ()  # known fields: no "unknown field" on the way


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_admission_and_the_reconcilers_refuse_them_as_the_cli_does(path: Path) -> None:
    document = load(path)
    expected = [str(issue) for issue in validate_manifest(document).errors]

    for result in (validate_create(document), validate_update(document, document)):
        assert not result.allowed
        assert [str(issue) for issue in result.errors] == expected


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_each_example_is_refused_for_its_experimental_fields_alone(path: Path) -> None:
    result = validate_manifest(without_experimental(load(path)))

    assert result.allowed, result.summary()


def test_the_reasons_say_what_each_feature_needs() -> None:
    assert "Dynamic Resource Allocation" in GPU_MEMORY_SERVICE_REFUSED
    assert "NVIDIA GPU DRA driver" in FAILOVER_REFUSED
    assert "CRIU and cuda-checkpoint" in CHECKPOINT_REFUSED
    for reason in REASONS.values():
        assert reason.startswith("not supported by this operator yet: ")
        assert reason.endswith("remove the field to deploy the service without it")


def test_blocks_that_are_turned_off_are_accepted() -> None:
    """Upstream renders nothing for them either (``enabled: false`` stages a configuration)."""
    alpha = load(EXAMPLES_BY_NAME["vllm-agg-failover.v1alpha1"])
    worker = alpha["spec"]["services"]["VllmWorker"]
    worker["gpuMemoryService"] = {"enabled": False, "mode": "intraPod"}
    worker["failover"] = {"enabled": False, "numShadows": 1}
    worker["checkpoint"] = {"enabled": False, "checkpointRef": "snapshot"}
    beta = load(EXAMPLES_BY_NAME["vllm-agg-failover.v1beta1"])
    beta["spec"]["components"][1]["experimental"] = {
        "gpuMemoryService": {"enabled": False},
        "failover": {"enabled": False},
        "checkpoint": {"enabled": False},
    }

    for document in (alpha, beta):
        result = validate_manifest(document)
        assert result.allowed, result.summary()
        assert result.warnings == ()


def test_a_block_turned_off_changes_no_pod() -> None:
    plain = without_experimental(load(EXAMPLES_BY_NAME["vllm-agg-gms.v1alpha1"]))
    staged = copy.deepcopy(plain)
    staged["spec"]["services"]["VllmWorker"]["gpuMemoryService"] = {"enabled": False}

    def deployments(document: dict[str, Any]) -> list[dict[str, Any]]:
        objects = render_objects([document], OperatorSettings()).objects
        return [obj for obj in objects if obj["kind"] == "Deployment"]

    assert deployments(staged) == deployments(plain)
    assert deployments(plain)


def test_a_component_deployment_is_refused_at_its_own_spec() -> None:
    image = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.1"
    alpha = {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoComponentDeployment",
        "metadata": {"name": "worker"},
        "spec": {
            "componentType": "worker",
            "gpuMemoryService": {"enabled": True},
            "checkpoint": {"enabled": True, "checkpointRef": "snapshot"},
            "extraPodSpec": {"mainContainer": {"image": image}},
        },
    }
    beta = {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoComponentDeployment",
        "metadata": {"name": "worker"},
        "spec": {
            "name": "worker",
            "type": "worker",
            "experimental": {"failover": {"mode": "IntraPod"}},
            "podTemplate": {"spec": {"containers": [{"name": "main", "image": image}]}},
        },
    }

    assert [str(issue) for issue in validate_create(alpha).errors] == [
        f"spec.gpuMemoryService: {GPU_MEMORY_SERVICE_REFUSED}",
        f"spec.checkpoint: {CHECKPOINT_REFUSED}",
    ]
    assert [str(issue) for issue in validate_create(beta).errors] == [
        f"spec.experimental.failover: {FAILOVER_REFUSED}"
    ]


def test_a_graph_that_got_in_without_the_webhook_is_failed_in_its_status_naming_the_field() -> None:
    """What the graph reconciler reports for any invalid spec: no children, a terminal failure."""
    graph = load(EXAMPLES_BY_NAME["sglang-agg-gms.v1alpha1"])
    graph["metadata"]["generation"] = 1
    result = validate_create(graph)

    status = derive_graph_status(
        graph, (), datetime(2026, 11, 27, tzinfo=UTC), failure=StatusFailure.invalid(result)
    )

    (ready,) = status["conditions"]
    assert status["state"] == "failed"
    assert (ready["type"], ready["status"], ready["reason"]) == (
        "Ready",
        "False",
        "ValidationFailed",
    )
    assert ready["message"] == (
        f"Validation failed: spec.services.decode.gpuMemoryService: {GPU_MEMORY_SERVICE_REFUSED}"
    )
