"""Fields the CRD neither defines nor preserves: exactly those the API server will not keep.

``kubectl apply`` (strict field validation, the default since kubectl 1.27) answers such a field
with ``unknown field "spec.services.Frontend.replica"`` and creates nothing; with validation off,
the API server prunes it and the operator never sees it. So the walk follows the schema of the
generated CRD itself (``dynamo_operator.crd``, what ``deploy/helm/dynamo-operator-crds/generated/``
holds) the way the API server's structural pruning does:

- at the resource root, ``apiVersion``, ``kind`` and ``metadata`` belong to the API server
  (metadata is decoded as a Kubernetes ObjectMeta, not against our schema) and are not walked;
- a key is known when its object's schema lists it in ``properties`` or has
  ``additionalProperties`` (the services map);
- under ``x-kubernetes-preserve-unknown-fields`` any key is kept, and only the listed properties
  are walked further. The CRD preserves what is Kubernetes' rather than ours: ``extraPodSpec`` (a
  PodSpec), ``mainContainer``, the probes, an autoscaler's ``behavior`` and ``metrics``, an env
  var's ``valueFrom``. Nothing there is ever reported: the CLI must not be stricter than the server;
- list items follow ``items``.

One deliberate difference: a value whose shape is not the schema's (a map where an integer
belongs) is not walked. The API server refuses its type, which is what the user must fix; each of
its keys reported as unknown would only bury that.

This runs on every admission and reconcile, over user data: the walk is iterative (an explicit
stack, however deep the object nests), and paths are joined only for the rare field reported.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from enum import Enum
from typing import Any

from dynamo_operator.api import VERSION
from dynamo_operator.crd import CUSTOM_RESOURCES
from dynamo_operator.field_paths import PathPart, join_path
from dynamo_operator.validation.collector import IssueCollector

Schema = Mapping[str, Any]

UNKNOWN_FIELD_REJECTED = (
    "unknown field; the API server rejects it (or drops it when field validation is off)"
)
UNKNOWN_FIELD_IGNORED = "field unknown to this operator version; it is ignored"

_PRESERVE = "x-kubernetes-preserve-unknown-fields"
_SERVER_OWNED_ROOT_FIELDS = frozenset({"apiVersion", "kind", "metadata"})


def find_unknown_fields(obj: Mapping[str, Any], kind: str, version: str = VERSION) -> list[str]:
    """Paths of ``obj``'s fields that the CRD of ``kind`` (a Dynamo kind) does not keep at
    ``version`` (each version has its own schema), in the order they are written."""
    root = {key: value for key, value in obj.items() if key not in _SERVER_OWNED_ROOT_FIELDS}
    unknown: list[str] = []
    # (value, its schema or None when the field is unknown, its path)
    pending: list[tuple[object, Schema | None, tuple[PathPart, ...]]] = [
        (root, crd_schema(kind, version), ())
    ]
    while pending:
        value, schema, parts = pending.pop()
        if schema is None:
            unknown.append(join_path("", *parts))
            continue
        # Pushed in reverse so that fields come out in the order the user wrote them.
        for part, child, child_schema in reversed(list(_children(value, schema))):
            pending.append((child, child_schema, (*parts, part)))
    return unknown


class UnknownFields(Enum):
    """What a field the CRD does not keep is (``dispatch`` says which, and why)."""

    ERRORS = "errors"
    WARNINGS = "warnings"
    UNREPORTED = "unreported"


def report_unknown_fields(
    obj: Mapping[str, Any],
    kind: str,
    version: str,
    issues: IssueCollector,
    unknown: UnknownFields,
) -> None:
    """Each unknown field an error (a manifest about to be applied), a warning (an object the
    API server has decoded), or nothing at all, without walking the object."""
    if unknown is UnknownFields.UNREPORTED:
        return
    for path in find_unknown_fields(obj, kind, version):
        if unknown is UnknownFields.ERRORS:
            issues.error(path, UNKNOWN_FIELD_REJECTED)
        else:
            issues.warn(path, UNKNOWN_FIELD_IGNORED)


@functools.cache
def crd_schema(kind: str, version: str = VERSION) -> Schema:
    """The ``openAPIV3Schema`` the CRD of ``kind`` gives the API server at ``version``."""
    for resource in CUSTOM_RESOURCES:
        if resource.kind == kind:
            schema: Schema = resource.version(version).to_wire()["schema"]["openAPIV3Schema"]
            return schema
    raise KeyError(f"no CRD for kind {kind!r}")


def _children(value: object, schema: Schema) -> Iterator[tuple[PathPart, object, Schema | None]]:
    """The entries of an object or list with the schema each must follow (None: unknown)."""
    preserved = schema.get(_PRESERVE) is True
    if isinstance(value, Mapping) and _is_object_schema(schema):
        properties: Mapping[str, Schema] = schema.get("properties", {})
        additional = schema.get("additionalProperties")
        for key, child in value.items():
            if key in properties:
                yield key, child, properties[key]
            elif isinstance(additional, Mapping):
                yield key, child, additional
            elif not preserved:
                yield key, child, None
    elif isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        for index, child in enumerate(value):
            yield index, child, schema["items"]


def _is_object_schema(schema: Schema) -> bool:
    return (
        schema.get("type") == "object"
        or "properties" in schema
        or "additionalProperties" in schema
        or schema.get(_PRESERVE) is True
    )
