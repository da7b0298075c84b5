"""The engine: edits at one version show at the other; hostile objects give only ConversionError."""

from __future__ import annotations

import time
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dynamo_operator.conversion import (
    ALPHA_API_VERSION,
    BETA_API_VERSION,
    ConversionError,
    convert,
)
from tests.dynamo_operator.conversion.strategies import (
    ROUND_TRIPS,
    alpha_graphs,
    beta_graphs,
)
from tests.fixtures.documents import FUZZ, JSON_VALUES, documents, nested

NEW_IMAGE = "registry.local/dynamo/edited:9.9.9"


def _main(component: dict[str, Any]) -> dict[str, Any] | None:
    containers = component.get("podTemplate", {}).get("spec", {}).get("containers", [])
    return next((c for c in containers if c.get("name") == "main"), None)


@ROUND_TRIPS
@given(graph=alpha_graphs(), replicas=st.integers(6, 9))
def test_replicas_and_image_edited_at_beta_show_at_alpha(
    graph: dict[str, Any], replicas: int
) -> None:
    beta = convert(graph, BETA_API_VERSION)
    for component in beta["spec"]["components"]:
        component["replicas"] = replicas
        main = _main(component)
        if main is not None:
            main["image"] = NEW_IMAGE
    alpha = convert(beta, ALPHA_API_VERSION)
    for name, service in alpha["spec"]["services"].items():
        assert service["replicas"] == replicas, name
        if "image" in service.get("extraPodSpec", {}).get("mainContainer", {}):
            assert service["extraPodSpec"]["mainContainer"]["image"] == NEW_IMAGE


@ROUND_TRIPS
@given(graph=beta_graphs(), replicas=st.integers(6, 9))
def test_replicas_and_image_edited_at_alpha_show_at_beta(
    graph: dict[str, Any], replicas: int
) -> None:
    alpha = convert(graph, ALPHA_API_VERSION)
    for service in alpha["spec"]["services"].values():
        service["replicas"] = replicas
        main = service.get("extraPodSpec", {}).get("mainContainer")
        if main is not None:
            main["image"] = NEW_IMAGE
    beta = convert(alpha, BETA_API_VERSION)
    for component in beta["spec"]["components"]:
        assert component["replicas"] == replicas
        main = _main(component)
        if main is not None:
            assert main["image"] == NEW_IMAGE


@ROUND_TRIPS
@given(graph=alpha_graphs())
def test_env_values_edited_at_beta_are_the_effective_env_at_alpha(graph: dict[str, Any]) -> None:
    beta = convert(graph, BETA_API_VERSION)
    edited: dict[str, list[str]] = {}
    for component in beta["spec"]["components"]:
        main = _main(component)
        for entry in (main or {}).get("env", []):
            entry.pop("valueFrom", None)
            entry["value"] = "edited"
            edited.setdefault(component["name"], []).append(entry["name"])
    alpha = convert(beta, ALPHA_API_VERSION)
    for name, names in edited.items():
        service = alpha["spec"]["services"][name]
        effective = {
            e["name"]: e
            for e in service.get("extraPodSpec", {}).get("mainContainer", {}).get("env", [])
            + service.get("envs", [])
        }
        assert {n: effective[n].get("value") for n in names} == dict.fromkeys(names, "edited")


def test_an_alpha_only_placement_survives_an_edit_of_the_value_at_beta() -> None:
    alpha = {
        "apiVersion": ALPHA_API_VERSION,
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g"},
        "spec": {
            "services": {
                "W": {
                    "componentType": "prefill",
                    "livenessProbe": {"exec": {"command": ["true"]}},
                    "extraPodSpec": {
                        "mainContainer": {
                            "image": "i",
                            "env": [{"name": "A", "value": "1"}],
                            "livenessProbe": {"exec": {"command": ["old"]}},
                        }
                    },
                }
            }
        },
    }
    beta = convert(alpha, BETA_API_VERSION)
    component = beta["spec"]["components"][0]
    assert component["type"] == "prefill"
    main = _main(component)
    assert main is not None
    main["env"][0]["value"] = "2"
    main["livenessProbe"] = {"exec": {"command": ["new"]}}
    component["type"] = "decode"
    service = convert(beta, ALPHA_API_VERSION)["spec"]["services"]["W"]
    # The env entry stays in mainContainer with its new value; the edited type and probe win
    # over the preserved (componentType: prefill) and the shadowed mainContainer probe.
    assert service["extraPodSpec"]["mainContainer"]["env"] == [{"name": "A", "value": "2"}]
    assert (service["componentType"], service["subComponentType"]) == ("worker", "decode")
    assert service["livenessProbe"] == {"exec": {"command": ["new"]}}
    assert "livenessProbe" not in service["extraPodSpec"]["mainContainer"]


@FUZZ
@given(
    document=documents(wrong=3, loose=2),
    version=st.sampled_from([ALPHA_API_VERSION, BETA_API_VERSION]),
    junk=JSON_VALUES,
)
def test_any_document_converts_or_raises_a_conversion_error(
    document: dict[str, Any], version: str, junk: Any
) -> None:
    for obj in (document, {**document, "apiVersion": BETA_API_VERSION}, {**document, "spec": junk}):
        try:
            there = convert(obj, version)
        except ConversionError:
            continue
        back = convert(there, obj["apiVersion"])
        assert back["kind"] == obj["kind"]


@pytest.mark.parametrize(
    "spec",
    [
        {"services": ["Frontend"]},
        {"services": {"A": "x", "B": {"extraPodSpec": "pod", "volumeMounts": [1, None]}}},
        {"services": {"A": {"extraPodSpec": {"mainContainer": {"env": "A=1"}, "containers": 5}}}},
        {"components": {"A": {}}},
        {"components": [{"name": "A", "podTemplate": "x"}, {"name": "A"}, 7, {"name": 3}]},
        {"components": [{"name": "A", "podTemplate": {"spec": {"containers": [{"name": "main",
            "env": 5, "resources": [], "volumeMounts": {}, "envFrom": "s"}]}}}]},
    ],
)  # fmt: skip
def test_wrong_shapes_are_preserved_exactly_both_ways(spec: dict[str, Any]) -> None:
    for version, other in (
        (ALPHA_API_VERSION, BETA_API_VERSION),
        (BETA_API_VERSION, ALPHA_API_VERSION),
    ):
        obj = {"apiVersion": version, "kind": "DynamoGraphDeployment", "metadata": {}, "spec": spec}
        assert convert(convert(obj, other), version) == obj


@pytest.mark.parametrize("version", [ALPHA_API_VERSION, BETA_API_VERSION])
def test_deep_nesting_is_refused_with_a_conversion_error(version: str) -> None:
    obj = {"apiVersion": version, "kind": "DynamoGraphDeployment", "spec": nested(5000)}
    with pytest.raises(ConversionError, match="nesting"):
        convert(obj, BETA_API_VERSION if version == ALPHA_API_VERSION else ALPHA_API_VERSION)


def test_non_json_values_are_refused_with_a_conversion_error() -> None:
    for bad in (float("nan"), {1: "x"}, object(), (1, 2)):
        obj = {"apiVersion": ALPHA_API_VERSION, "kind": "DynamoGraphDeployment", "spec": {"x": bad}}
        with pytest.raises(ConversionError):
            convert(obj, BETA_API_VERSION)


def test_huge_objects_convert_in_bounded_time() -> None:
    env = [{"name": f"V{i}", "value": str(i)} for i in range(20000)]
    services = {f"s{i}": {"replicas": 1, "envs": env[:200]} for i in range(300)}
    obj = {
        "apiVersion": ALPHA_API_VERSION,
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g"},
        "spec": {"services": services, "envs": env},
    }
    start = time.perf_counter()
    assert convert(convert(obj, BETA_API_VERSION), ALPHA_API_VERSION) == obj
    assert time.perf_counter() - start < 20


def test_a_junk_residue_annotation_is_consumed_without_error() -> None:
    for junk in (
        "not json",
        "[" * 5000,
        '{"v": 1, "h": 5, "p": [["s"], ["x", 1, 2], 7]}',
        '{"v":2}',
    ):
        obj = {
            "apiVersion": BETA_API_VERSION,
            "kind": "DynamoGraphDeployment",
            "metadata": {"name": "g", "annotations": {"nvidia.com/dgd-spec": junk}},
            "spec": {"components": [{"name": "A", "replicas": 2}]},
        }
        alpha = convert(obj, ALPHA_API_VERSION)
        assert alpha["spec"] == {"services": {"A": {"replicas": 2}}}
        assert "annotations" not in alpha["metadata"]
