from typing import Annotated, Any

from pydantic import Field

from dynamo_operator.api import ApiModel, FreeFormObject, Quantity
from dynamo_operator.crd import build_structural_schema, find_structural_violations


class Inner(ApiModel):
    """An inner object."""

    count: Annotated[int, Field(ge=2)] = 2
    """How many."""


class Outer(ApiModel):
    """An outer object."""

    inner_thing: Inner | None = None
    """The inner thing, described where it is used."""
    size: Quantity | None = None
    """A quantity."""
    free: FreeFormObject | None = None
    """Anything."""
    names: dict[str, str] | None = None
    """Names."""
    required_name: str
    """Must be present."""


def test_optional_fields_become_plain_typed_properties_with_camel_case_names() -> None:
    schema = build_structural_schema(Outer)

    assert set(schema["properties"]) == {"innerThing", "size", "free", "names", "requiredName"}
    assert schema["required"] == ["requiredName"]
    assert schema["properties"]["names"] == {
        "type": "object",
        "additionalProperties": {"type": "string"},
        "description": "Names.",
    }


def test_referenced_models_are_inlined_and_the_field_description_wins() -> None:
    inner = build_structural_schema(Outer)["properties"]["innerThing"]

    assert inner["type"] == "object"
    assert inner["description"] == "The inner thing, described where it is used."
    assert inner["properties"]["count"] == {
        "type": "integer",
        "minimum": 2,
        "default": 2,
        "description": "How many.",
    }


def test_quantities_are_int_or_string_and_free_form_objects_preserve_unknown_fields() -> None:
    properties = build_structural_schema(Outer)["properties"]

    assert properties["size"]["x-kubernetes-int-or-string"] is True
    assert properties["free"]["x-kubernetes-preserve-unknown-fields"] is True
    assert "default" not in properties["free"]


def test_generated_schema_is_structural() -> None:
    assert find_structural_violations(build_structural_schema(Outer)) == []


def test_violations_are_reported_with_their_path() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "a": {"description": "untyped"},
            "b": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
        },
    }

    assert find_structural_violations(schema) == [
        ".a: no type",
        ".b[]: no type",
        ".b[]: anyOf outside int-or-string",
    ]
