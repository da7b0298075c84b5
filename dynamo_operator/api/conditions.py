"""Condition lists keyed by type, shared by every status."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from dynamo_operator.api.base import Condition

LIST_MAP_BY_TYPE: dict[str, Any] = {
    "x-kubernetes-list-type": "map",
    "x-kubernetes-list-map-keys": ["type"],
}

Conditions = Annotated[list[Condition], Field(json_schema_extra=LIST_MAP_BY_TYPE)]
"""Conditions, at most one per type (server-side apply merges them by type)."""
