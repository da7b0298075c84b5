"""Guard sources: each field derives from the fields the contract maps it from."""

from __future__ import annotations

from dynamo_operator.conversion.sources import MAIN, component_sources, service_sources


def test_alpha_fields_derive_from_their_beta_fields() -> None:
    assert component_sources(["subComponentType"]) == [["type"]]
    assert component_sources(["envs", 0, "value"]) == [[*MAIN, "env"]]
    assert component_sources(["extraPodSpec", "mainContainer", "image"]) == [[*MAIN, "image"]]
    assert component_sources(["extraPodSpec", "tolerations", 0]) == [
        ["podTemplate", "spec", "tolerations"]
    ]
    assert component_sources(["volumeMounts", 1]) == [["compilationCache"], [*MAIN, "volumeMounts"]]
    assert component_sources(["ingress"]) == []
    assert component_sources(["annotations", "a"]) == []


def test_beta_fields_derive_from_their_alpha_fields() -> None:
    assert service_sources(["type"]) == [["componentType"], ["subComponentType"]]
    assert service_sources([*MAIN, "env"]) == [["envs"], ["extraPodSpec", "mainContainer", "env"]]
    assert service_sources(["podTemplate", "metadata", "name"]) == []
    assert service_sources(["podTemplate", "metadata", "labels"]) == [
        ["extraPodMetadata", "labels"]
    ]
    assert service_sources(["podTemplate", "spec", "containers", ["side"]]) == [
        ["extraPodSpec", "containers"]
    ]
