"""convert(): lossless both ways, the same version copied, anything else a ConversionError."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given

from dynamo_operator.conversion import (
    ALPHA_API_VERSION,
    BETA_API_VERSION,
    PRESERVED_ANNOTATIONS,
    ConversionError,
    convert,
)
from tests.dynamo_operator.conversion.strategies import (
    ROUND_TRIPS,
    alpha_component_deployments,
    alpha_graphs,
    beta_component_deployments,
    beta_graphs,
)

ALPHA, BETA = ALPHA_API_VERSION, BETA_API_VERSION
ALPHA_OBJECTS = alpha_graphs() | alpha_component_deployments()
BETA_OBJECTS = beta_graphs() | beta_component_deployments()


def _round_trip(obj: dict[str, Any], there: str, back: str) -> dict[str, Any]:
    original = copy.deepcopy(obj)
    converted = convert(obj, there)
    assert obj == original, "convert modified its input"
    assert converted["apiVersion"] == there
    assert {k: v for k, v in converted["metadata"].items() if k != "annotations"} == {
        k: v for k, v in obj["metadata"].items() if k != "annotations"
    }, "only annotations may change in metadata"
    return convert(converted, back)


@ROUND_TRIPS
@given(obj=ALPHA_OBJECTS)
def test_an_alpha_object_survives_the_round_trip_through_beta_exactly(obj: dict[str, Any]) -> None:
    assert _round_trip(obj, BETA_API_VERSION, ALPHA_API_VERSION) == obj


@ROUND_TRIPS
@given(obj=BETA_OBJECTS)
def test_a_beta_object_survives_the_round_trip_through_alpha_exactly(obj: dict[str, Any]) -> None:
    assert _round_trip(obj, ALPHA_API_VERSION, BETA_API_VERSION) == obj


@ROUND_TRIPS
@given(obj=BETA_OBJECTS)
def test_the_stored_form_of_a_beta_object_survives_its_own_round_trip(obj: dict[str, Any]) -> None:
    # What the API server stores (v1alpha1 with the residue) is read back at v1beta1 and written
    # again: both objects of the cycle are fixed points.
    stored = convert(obj, ALPHA_API_VERSION)
    assert _round_trip(stored, BETA_API_VERSION, ALPHA_API_VERSION) == stored


@ROUND_TRIPS
@given(obj=ALPHA_OBJECTS)
def test_the_served_form_of_an_alpha_object_survives_its_own_round_trip(
    obj: dict[str, Any],
) -> None:
    served = convert(obj, BETA_API_VERSION)
    assert _round_trip(served, ALPHA_API_VERSION, BETA_API_VERSION) == served


@pytest.mark.parametrize("version", [ALPHA_API_VERSION, BETA_API_VERSION])
def test_the_same_version_gives_an_equal_copy(version: str) -> None:
    obj = {"apiVersion": version, "kind": "DynamoGraphDeployment", "spec": {"x": [1]}}
    converted = convert(obj, version)
    assert converted == obj
    converted["spec"]["x"].append(2)
    assert obj["spec"]["x"] == [1]


@pytest.mark.parametrize(
    ("obj", "version", "path"),
    [
        ({"apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoModel"}, BETA_API_VERSION, "kind"),
        ({"apiVersion": "nvidia.com/v1alpha1"}, BETA_API_VERSION, "kind"),
        (
            {"apiVersion": "apps/v1", "kind": "DynamoGraphDeployment"},
            BETA_API_VERSION,
            "apiVersion",
        ),
        (
            {"apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment"},
            "v2",
            "apiVersion",
        ),
        (
            {"apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment", "metadata": []},
            BETA_API_VERSION,
            "metadata",
        ),
        (
            {
                "apiVersion": "nvidia.com/v1beta1",
                "kind": "DynamoGraphDeployment",
                "metadata": {"annotations": "x"},
            },
            ALPHA_API_VERSION,
            "metadata.annotations",
        ),
    ],
)
def test_what_cannot_be_converted_is_a_conversion_error_naming_the_field(
    obj: dict[str, Any], version: str, path: str
) -> None:
    with pytest.raises(ConversionError) as raised:
        convert(obj, version)
    assert raised.value.path == path
    assert path in str(raised.value)


def test_an_annotation_is_written_only_when_needed_and_consumed_on_the_way_back() -> None:
    obj = {
        "apiVersion": ALPHA_API_VERSION,
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g", "annotations": {"team": "a"}},
        "spec": {"services": {"Frontend": {"replicas": 1, "ingress": {"enabled": False}}}},
    }
    beta = convert(obj, BETA_API_VERSION)
    assert set(beta["metadata"]["annotations"]) == {"team", PRESERVED_ANNOTATIONS[0]}
    assert convert(beta, ALPHA_API_VERSION)["metadata"] == {
        "name": "g",
        "annotations": {"team": "a"},
    }


# Found by `python -m bench.fuzz --target convert` (each was a TypeError or AttributeError, which
# the webhook turned into "internal error while converting").
_HOSTILE = [
    {"apiVersion": BETA, "kind": "DynamoGraphDeployment", "metadata": {"name": "g"},
     "spec": {"components": [{"name": "a", "type": {}}]}},
    {"apiVersion": BETA, "kind": "DynamoGraphDeployment", "metadata": {"name": "g"},
     "spec": {"components": [{"name": "a", "type": []}]}},
    {"apiVersion": BETA, "kind": "DynamoComponentDeployment", "metadata": {"name": "g"},
     "spec": {"name": "a", "type": {}}},
    {"apiVersion": ALPHA, "kind": "DynamoGraphDeployment", "metadata": {"name": "g"},
     "spec": {"services": {"a": {"componentType": "worker", "subComponentType": {}}}}},
]  # fmt: skip


@pytest.mark.parametrize("obj", _HOSTILE)
def test_a_type_of_the_wrong_shape_is_kept_and_comes_back(obj: dict[str, Any]) -> None:
    other = ALPHA if obj["apiVersion"] == BETA else BETA
    assert convert(convert(obj, other), obj["apiVersion"]) == obj


def test_a_residue_that_would_replace_the_whole_body_is_ignored() -> None:
    hostile = '{"p":[["s",[],[1],""]],"v":1}'
    obj = {
        "apiVersion": BETA,
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g", "annotations": {"nvidia.com/dgd-spec": hostile}},
        "spec": {},
    }
    converted = convert(obj, ALPHA)
    assert isinstance(converted["spec"], dict)
    assert "nvidia.com/dgd-spec" not in (converted["metadata"].get("annotations") or {})


def test_explicitly_null_annotations_come_back_null() -> None:
    obj = {
        "apiVersion": ALPHA,
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g", "annotations": None},
        "spec": {"services": {}},
    }
    assert convert(convert(obj, BETA), ALPHA) == obj


def test_null_annotations_and_no_metadata_come_back_as_they_were_when_a_residue_travels() -> None:
    # componentType prefill (not worker + subComponentType) needs a residue to come back.
    spec = {"services": {"p": {"componentType": "prefill", "replicas": 1}}}
    null = {"apiVersion": ALPHA, "kind": "DynamoGraphDeployment", "metadata": {"annotations": None}}
    bare = {"apiVersion": ALPHA, "kind": "DynamoGraphDeployment"}
    for obj in ({**null, "spec": spec}, {**bare, "spec": spec}):
        assert convert(convert(obj, BETA), ALPHA) == obj
