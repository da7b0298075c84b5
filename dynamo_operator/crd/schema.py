"""Turn a pydantic model's JSON schema into a structural OpenAPI v3 schema for a CRD.

Kubernetes accepts only *structural* schemas: every node has a type (or is int-or-string or
preserves unknown fields), no ``$ref``, no nullable unions, no ``additionalProperties`` next to
``properties``. Pydantic's JSON schema is close; this module closes the gap by inlining ``$defs``,
collapsing ``X | None`` to ``X`` (absence is how Kubernetes spells None), and dropping titles and
null defaults. Descriptions, enums, bounds, defaults and ``x-kubernetes-*`` extensions pass through.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

JsonSchema = dict[str, Any]

_DROPPED_KEYS = frozenset({"title", "$defs"})


def build_structural_schema(model: type[BaseModel]) -> JsonSchema:
    """The structural schema of ``model``'s wire (camelCase) form."""
    raw = model.model_json_schema(by_alias=True, mode="validation")
    definitions: dict[str, JsonSchema] = raw.get("$defs", {})
    return _convert(raw, definitions)


def _convert(node: JsonSchema, definitions: dict[str, JsonSchema]) -> JsonSchema:
    node = _inline_reference(node, definitions)
    node = _collapse_optional(node, definitions)
    converted: JsonSchema = {}
    for key, value in node.items():
        if key in _DROPPED_KEYS or (key == "default" and value is None):
            continue
        if key == "properties":
            converted[key] = {name: _convert(child, definitions) for name, child in value.items()}
        elif key == "items" or (key == "additionalProperties" and isinstance(value, dict)):
            converted[key] = _convert(value, definitions)
        elif key == "anyOf":
            converted[key] = [_convert(choice, definitions) for choice in value]
        else:
            converted[key] = value
    return _make_structural(converted)


def _inline_reference(node: JsonSchema, definitions: dict[str, JsonSchema]) -> JsonSchema:
    reference = node.get("$ref")
    if reference is None:
        return node
    target = definitions[reference.rsplit("/", 1)[-1]]
    # The referring field's own keys (its description above all) are more specific than the
    # referenced type's docstring, so they win.
    siblings = {key: value for key, value in node.items() if key != "$ref"}
    return _inline_reference({**target, **siblings}, definitions)


def _collapse_optional(node: JsonSchema, definitions: dict[str, JsonSchema]) -> JsonSchema:
    choices = node.get("anyOf")
    if choices is None:
        return node
    present = [choice for choice in choices if choice != {"type": "null"}]
    if len(present) != 1 or len(present) == len(choices):
        return node
    outer = {key: value for key, value in node.items() if key != "anyOf"}
    inner = _inline_reference(present[0], definitions)
    return _collapse_optional({**inner, **outer}, definitions)


def _make_structural(node: JsonSchema) -> JsonSchema:
    # Models keep unknown fields in Python (extra="allow") for forward compatibility, which pydantic
    # reports as additionalProperties: true; in a CRD that is expressed by pruning rules instead.
    if node.get("additionalProperties") is True:
        del node["additionalProperties"]
        if "properties" not in node:
            node["x-kubernetes-preserve-unknown-fields"] = True
    return node


def find_structural_violations(schema: JsonSchema, path: str = "") -> list[str]:
    """Paths of nodes that the API server would reject as non-structural (empty when fine)."""
    violations: list[str] = []
    untyped_allowed = schema.get("x-kubernetes-int-or-string") or schema.get(
        "x-kubernetes-preserve-unknown-fields"
    )
    if "type" not in schema and not untyped_allowed:
        violations.append(f"{path or '<root>'}: no type")
    if "$ref" in schema:
        violations.append(f"{path}: $ref")
    if "properties" in schema and "additionalProperties" in schema:
        violations.append(f"{path}: both properties and additionalProperties")
    if "anyOf" in schema and not schema.get("x-kubernetes-int-or-string"):
        violations.append(f"{path}: anyOf outside int-or-string")
    for name, child in schema.get("properties", {}).items():
        violations.extend(find_structural_violations(child, f"{path}.{name}"))
    if isinstance(schema.get("items"), dict):
        violations.extend(find_structural_violations(schema["items"], f"{path}[]"))
    if isinstance(schema.get("additionalProperties"), dict):
        violations.extend(find_structural_violations(schema["additionalProperties"], f"{path}.*"))
    return violations
