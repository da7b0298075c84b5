from __future__ import annotations

import pytest

from dynamo_operator.errors import InvalidComponentReferenceError
from dynamo_operator.naming import (
    base_model_hash,
    component_deployment_name,
    component_resource_name,
    default_dynamo_namespace,
    dynamo_namespace,
    is_dns1123_label,
    is_dns1123_subdomain,
    leader_worker_set_name,
    model_service_name,
    parse_component_reference,
)


def test_component_deployment_name_lowercases_the_service() -> None:
    assert component_deployment_name("vllm-disagg", "VllmDecodeWorker") == (
        "vllm-disagg-vllmdecodeworker"
    )


def test_leader_worker_set_name_appends_the_replica_index() -> None:
    assert leader_worker_set_name("g-worker", 3) == "g-worker-3"


def test_default_dynamo_namespace_replaces_dots() -> None:
    assert default_dynamo_namespace("team", "llama.v2") == "team-llama-v2"


def test_declared_dynamo_namespace_wins_over_the_default() -> None:
    assert dynamo_namespace("team", "g", [None, "", "shared"]) == "shared"
    assert dynamo_namespace("team", "g", [None]) == "team-g"


@pytest.mark.parametrize(
    ("name", "label", "subdomain"),
    [
        ("worker-0", True, True),
        ("a.b", False, True),
        ("Worker", False, False),
        ("-worker", False, False),
        ("x" * 63, True, True),
        ("x" * 64, False, True),
        ("x" * 254, False, False),
    ],
)
def test_dns1123_checks(name: str, label: bool, subdomain: bool) -> None:
    assert is_dns1123_label(name) is label
    assert is_dns1123_subdomain(name) is subdomain


def test_base_model_hash_is_a_label_value_for_any_name_and_names_its_service() -> None:
    # The first 8 hex digits of SHA-256, as the upstream operator computes them, so what it
    # labelled keeps matching.
    assert base_model_hash("Qwen/Qwen3-0.6B") == "fb68f5a6"
    assert model_service_name("Qwen/Qwen3-0.6B") == "dynamo-model-fb68f5a6"
    assert is_dns1123_label(model_service_name("a" * 300 + "/Ünïcode model"))


# --- artifact references ------------------------------------------------------------------------


def test_an_artifact_reference_names_its_dynamo_component_with_a_double_dash() -> None:
    assert component_resource_name("frontend:jh2o6dqzpsgfued4") == "frontend--jh2o6dqzpsgfued4"
    reference = parse_component_reference("graphs.agg_v2:1.0-rc1")
    assert (reference.name, reference.version) == ("graphs.agg_v2", "1.0-rc1")
    assert str(reference) == "graphs.agg_v2:1.0-rc1"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("frontend", "no ':version'"),
        (":abc", "empty name"),
        ("frontend:", "empty version"),
        ("Frontend:abc", "invalid name 'Frontend'"),
        ("frontend:a b", "invalid version 'a b'"),
        ("frontend:abc:def", "invalid version 'abc:def'"),
        ("-frontend:abc", "invalid name"),
        ("frontend:" + "a" * 64, "invalid version"),
    ],
)
def test_a_bad_reference_says_which_part_is_wrong(text: str, why: str) -> None:
    with pytest.raises(InvalidComponentReferenceError, match=why) as raised:
        parse_component_reference(text)
    assert "must be name:version" in str(raised.value)
