"""Building blocks shared by every Dynamo API type: the model base, metadata, conditions, env vars.

Every model speaks camelCase on the wire, accepts snake_case in Python, and keeps fields it does not
know (``extra="allow"``) so an object read from a cluster running a newer CRD survives a round trip.
Attribute docstrings become field descriptions, which the CRD generator publishes for
``kubectl explain``.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema
from pydantic.alias_generators import to_camel

from dynamo_operator.api.constants import ConditionStatus

#: Extension keys the CRD generator copies verbatim into the OpenAPI schema.
PRESERVE_UNKNOWN_FIELDS: dict[str, Any] = {"x-kubernetes-preserve-unknown-fields": True}


class ApiModel(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="allow",
        use_attribute_docstrings=True,
        # DynamoModel has fields named modelName/modelType; they are not pydantic internals.
        protected_namespaces=(),
    )

    def to_wire(self) -> dict[str, Any]:
        """The object as the API server expects it: camelCase, no unset optional fields."""
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")


def _quantity_to_string(value: object) -> object:
    # Users write `size: 10` or `gpu: 1`; Kubernetes quantities are strings once canonical, and
    # builders should not care which form the user picked.
    if isinstance(value, bool):
        return value  # let pydantic reject it as a non-string
    if isinstance(value, int | float):
        return str(value)
    return value


#: The syntax of a Kubernetes quantity (resource.Quantity's OpenAPI pattern): an optional sign, a
#: decimal number, then a binary (Ki..Ei) or decimal (n..E) suffix or an exponent.
QUANTITY_PATTERN = (
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))"
    r"(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)
_QUANTITY = re.compile(QUANTITY_PATTERN)


def _check_quantity_syntax(value: str) -> str:
    if not _QUANTITY.match(value):
        raise ValueError(
            "must be a Kubernetes quantity such as 500m, 2, 1.5Gi or 8Gi (a number with an "
            "optional suffix n, u, m, k, M, G, T, P, E or Ki, Mi, Gi, Ti, Pi, Ei)"
        )
    return value


Quantity = Annotated[
    str,
    BeforeValidator(_quantity_to_string),
    AfterValidator(_check_quantity_syntax),
    WithJsonSchema(
        {
            "anyOf": [{"type": "integer"}, {"type": "string"}],
            "pattern": QUANTITY_PATTERN,
            "x-kubernetes-int-or-string": True,
        }
    ),
]
"""A Kubernetes resource quantity such as ``8Gi`` or ``500m``; integers are accepted."""

INT32_MAX = 2**31 - 1

#: A count the CRD schema declares as an int32 integer: never a string, a boolean or a float
#: (pydantic's lax mode would turn ``"3"`` and ``true`` into 3 and 1; the API server refuses them).
NonNegativeInt32 = Annotated[
    int, Field(strict=True, ge=0, le=INT32_MAX, json_schema_extra={"format": "int32"})
]

#: A boolean the CRD schema declares as such: ``"true"`` or ``1`` are refused, not coerced.
StrictBool = Annotated[bool, Field(strict=True)]

#: A free-form Kubernetes object (probe, container, behaviour) kept as-is and never pruned.
FreeFormObject = Annotated[
    dict[str, Any],
    WithJsonSchema({"type": "object", **PRESERVE_UNKNOWN_FIELDS}),
]


class ObjectMeta(ApiModel):
    """Standard Kubernetes object metadata (the subset the operator reads; the rest is kept)."""

    name: str | None = None
    """Name of the object, unique within its namespace."""
    generate_name: str | None = None
    """Prefix the API server uses to generate a unique name."""
    namespace: str | None = None
    """Namespace of the object."""
    uid: str | None = None
    """Unique identifier assigned by the API server."""
    resource_version: str | None = None
    """Opaque version of the object used for optimistic concurrency."""
    generation: int | None = None
    """Sequence number of the desired state, incremented on each spec change."""
    creation_timestamp: str | None = None
    """When the object was created (RFC 3339)."""
    deletion_timestamp: str | None = None
    """When the object was asked to be deleted (RFC 3339)."""
    labels: dict[str, str] | None = None
    """Labels of the object."""
    annotations: dict[str, str] | None = None
    """Annotations of the object."""
    owner_references: list[dict[str, Any]] | None = None
    """Objects this object depends on, used for garbage collection."""
    finalizers: list[str] | None = None
    """Finalizers that must be cleared before the object is deleted."""


class Condition(ApiModel):
    """One aspect of an object's current state (``metav1.Condition``)."""

    type: str
    """Type of condition in CamelCase, e.g. Ready or Available."""
    status: ConditionStatus
    """Status of the condition: True, False or Unknown."""
    observed_generation: Annotated[int, Field(ge=0)] | None = None
    """The metadata.generation the condition was set for."""
    last_transition_time: str | None = None
    """Last time the condition changed status (RFC 3339)."""
    reason: str | None = None
    """Machine-readable CamelCase reason for the last transition."""
    message: str | None = None
    """Human-readable details about the last transition."""


class EnvVar(ApiModel):
    """An environment variable for the component's main container (``corev1.EnvVar``)."""

    name: str
    """Name of the environment variable."""
    value: str | None = None
    """Value of the variable; ``$(VAR)`` references are expanded by the kubelet."""
    value_from: FreeFormObject | None = None
    """Source for the value (secretKeyRef, configMapKeyRef, fieldRef, resourceFieldRef)."""
