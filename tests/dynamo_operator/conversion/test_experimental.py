"""Upstream's experimental fields travel between the versions: v1alpha1 service fields <->
v1beta1 ``experimental.<name>``, as upstream maps them, and nothing is lost either way.

A user who reads a v1alpha1 graph at v1beta1 (or the reverse) must see the feature they asked for
at that version's place, so that validation refuses it there too, and get their object back
exactly.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from dynamo_operator.conversion import (
    ALPHA_API_VERSION,
    BETA_API_VERSION,
    PRESERVED_ANNOTATIONS,
    beta_path,
    convert,
)
from dynamo_operator.conversion.experimental import (
    EXPERIMENTAL_FIELDS,
    experimental_to_alpha,
    experimental_to_beta,
)
from tests.dynamo_operator.conversion.strategies import ROUND_TRIPS, alpha_graphs, beta_graphs

EXAMPLES = sorted(
    (Path(__file__).parents[1] / "validation" / "upstream_experimental").glob("*.yaml")
)
BY_NAME = {path.stem: path for path in EXAMPLES}


def load(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(path.read_text())
    return document


def other_version(document: dict[str, Any]) -> str:
    return BETA_API_VERSION if document["apiVersion"] == ALPHA_API_VERSION else ALPHA_API_VERSION


def test_an_enabled_alpha_block_is_the_beta_block_without_enabled_and_modes_respelled() -> None:
    service = {
        "gpuMemoryService": {"enabled": True, "mode": "intraPod", "deviceClassName": "gpu.x"},
        "failover": {"enabled": True, "mode": "interPod", "numShadows": 1},
        "checkpoint": {"enabled": True, "checkpointRef": "snapshot"},
    }

    assert experimental_to_beta(service) == {
        "experimental": {
            "gpuMemoryService": {"mode": "IntraPod", "deviceClassName": "gpu.x"},
            "failover": {"mode": "InterPod", "numShadows": 1},
            "checkpoint": {"enabled": True, "checkpointRef": "snapshot"},
        }
    }


def test_a_disabled_alpha_gms_or_failover_block_has_no_beta_form() -> None:
    service = {"gpuMemoryService": {"enabled": False, "mode": "intraPod"}, "failover": {}}

    assert experimental_to_beta(service) == {}
    assert experimental_to_beta({"checkpoint": {"enabled": False}}) == {
        "experimental": {"checkpoint": {"enabled": False}}
    }


def test_a_beta_block_is_on_by_being_there_unless_it_says_enabled_false() -> None:
    component = {
        "experimental": {
            "gpuMemoryService": {},
            "failover": {"mode": "IntraPod", "enabled": False, "futureField": [1]},
            "checkpoint": {"enabled": True, "startupPolicy": "WaitForCheckpoint"},
        }
    }

    assert experimental_to_alpha(component) == {
        "gpuMemoryService": {"enabled": True},
        "failover": {"enabled": False, "mode": "intraPod", "futureField": [1]},
        "checkpoint": {"enabled": True, "startupPolicy": "WaitForCheckpoint"},
    }


def test_a_mode_of_neither_spelling_passes_as_written() -> None:
    component = {"experimental": {"gpuMemoryService": {"mode": "Sideways"}}}

    assert experimental_to_alpha(component)["gpuMemoryService"]["mode"] == "Sideways"
    service = {"gpuMemoryService": {"enabled": True, "mode": "Sideways"}}
    assert experimental_to_beta(service)["experimental"]["gpuMemoryService"]["mode"] == "Sideways"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_each_upstream_example_converts_and_comes_back_exactly(path: Path) -> None:
    document = load(path)
    there = convert(document, other_version(document))

    assert convert(there, document["apiVersion"]) == document


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_the_converted_example_asks_for_the_same_features_at_the_other_version(path: Path) -> None:
    document = load(path)
    there = convert(document, other_version(document))

    assert _features_on(there) == _features_on(document)
    assert _features_on(document)


def test_upstreams_v1alpha1_failover_example_reads_as_its_v1beta1_twin() -> None:
    """examples/backends/vllm/deploy/agg_failover.yaml and v1beta1/agg_failover.yaml say the same:
    ``enabled: true`` at v1alpha1 is an empty block at v1beta1."""
    beta = convert(load(BY_NAME["vllm-agg-failover.v1alpha1"]), BETA_API_VERSION)
    twin = load(BY_NAME["vllm-agg-failover.v1beta1"])

    worker = next(c for c in beta["spec"]["components"] if c["name"] == "VllmWorker")
    assert worker["experimental"] == twin["spec"]["components"][1]["experimental"]
    assert not set(beta["metadata"].get("annotations", {})) & set(PRESERVED_ANNOTATIONS)


def test_a_disabled_block_travels_in_the_residue_and_a_v1beta1_edit_wins_over_it() -> None:
    alpha = _graph({"gpuMemoryService": {"enabled": False, "mode": "interPod"}})
    beta = convert(alpha, BETA_API_VERSION)
    assert "experimental" not in beta["spec"]["components"][0]
    assert set(beta["metadata"]["annotations"]) & set(PRESERVED_ANNOTATIONS)
    assert convert(beta, ALPHA_API_VERSION) == alpha

    beta["spec"]["components"][0]["experimental"] = {"gpuMemoryService": {"mode": "IntraPod"}}
    service = convert(beta, ALPHA_API_VERSION)["spec"]["services"]["VllmWorker"]

    assert service["gpuMemoryService"] == {"enabled": True, "mode": "intraPod"}


@pytest.mark.parametrize("others", [{}, {"gpuMemoryService": {}}], ids=["alone", "beside-gms"])
def test_a_beta_block_turned_off_travels_in_the_residue_and_a_v1alpha1_edit_wins_over_it(
    others: dict[str, Any],
) -> None:
    """The stored form of a v1beta1 graph is v1alpha1: an edit made there (a controller writing
    v1alpha1) must show at v1beta1."""
    beta = convert(_graph({}), BETA_API_VERSION)
    experimental = {**others, "failover": {"enabled": False, "mode": "X"}}
    beta["spec"]["components"][0]["experimental"] = experimental
    alpha = convert(beta, ALPHA_API_VERSION)
    assert alpha["spec"]["services"]["VllmWorker"]["failover"] == {"enabled": False, "mode": "X"}
    assert convert(alpha, BETA_API_VERSION) == beta

    alpha["spec"]["services"]["VllmWorker"]["failover"] = {"enabled": True, "mode": "intraPod"}
    component = convert(alpha, BETA_API_VERSION)["spec"]["components"][0]

    assert component["experimental"] == {**others, "failover": {"mode": "IntraPod"}}


GRAPH_AT_BETA = {
    "apiVersion": BETA_API_VERSION,
    "kind": "DynamoGraphDeployment",
    "metadata": {"name": "g"},
    "spec": {
        "components": [
            {"name": "F"},
            {"name": "W", "experimental": {"gpuMemoryService": {}, "failover": {}}},
        ]
    },
}
COMPONENT_AT_BETA = {
    "apiVersion": BETA_API_VERSION,
    "kind": "DynamoComponentDeployment",
    "metadata": {"name": "w"},
    "spec": {"name": "W", "experimental": {"checkpoint": {"enabled": True}}},
}


@pytest.mark.parametrize(
    ("obj", "alpha_path", "expected"),
    [
        (
            GRAPH_AT_BETA,
            "spec.services.W.gpuMemoryService",
            "spec.components[1].experimental.gpuMemoryService",
        ),
        (
            GRAPH_AT_BETA,
            "spec.services.W.failover.mode",
            "spec.components[1].experimental.failover.mode",
        ),
        (COMPONENT_AT_BETA, "spec.checkpoint", "spec.experimental.checkpoint"),
    ],
)
def test_a_v1alpha1_path_names_the_field_under_experimental(
    obj: dict[str, Any], alpha_path: str, expected: str
) -> None:
    assert beta_path(obj, alpha_path) == expected


ON = st.sets(st.sampled_from(EXPERIMENTAL_FIELDS), min_size=1)


@ROUND_TRIPS
@given(graph=alpha_graphs(), on=ON)
def test_alpha_graphs_with_blocks_turned_on_survive_the_round_trip(
    graph: dict[str, Any], on: set[str]
) -> None:
    for service in graph["spec"]["services"].values():
        for name in on:
            service[name] = {**service.get(name, {}), "enabled": True}
    original = copy.deepcopy(graph)

    beta = convert(graph, BETA_API_VERSION)

    assert graph == original
    assert convert(beta, ALPHA_API_VERSION) == graph
    for component in beta["spec"]["components"]:
        assert set(component["experimental"]) >= on


@ROUND_TRIPS
@given(graph=beta_graphs(), on=ON)
def test_beta_graphs_with_blocks_turned_on_survive_the_round_trip(
    graph: dict[str, Any], on: set[str]
) -> None:
    for component in graph["spec"]["components"]:
        experimental = component.setdefault("experimental", {})
        for name in on:
            block = {k: v for k, v in experimental.get(name, {}).items() if k != "enabled"}
            experimental[name] = {**block, "enabled": True} if name == "checkpoint" else block

    alpha = convert(graph, ALPHA_API_VERSION)

    assert convert(alpha, BETA_API_VERSION) == graph
    for service in alpha["spec"]["services"].values():
        assert {name for name in on if service[name].get("enabled") is True} == on


def _graph(service: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": ALPHA_API_VERSION,
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g"},
        "spec": {"services": {"VllmWorker": {"componentType": "worker", **service}}},
    }


def _features_on(document: dict[str, Any]) -> dict[str, set[str]]:
    """The experimental features each service or component turns on, at either version."""
    spec = document["spec"]
    if "services" in spec:
        return {
            name: {f for f in EXPERIMENTAL_FIELDS if (service.get(f) or {}).get("enabled") is True}
            for name, service in spec["services"].items()
        }
    features: dict[str, set[str]] = {}
    for component in spec["components"]:
        blocks = component.get("experimental") or {}
        features[component["name"]] = {
            f for f, block in blocks.items() if block.get("enabled", f != "checkpoint") is True
        }
    return features
