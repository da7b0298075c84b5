"""Errors of validation: ``UnknownKindError``, a document whose kind is not one of ours."""

from __future__ import annotations

__all__ = ["UnknownKindError"]


class UnknownKindError(ValueError):
    """Raised for an object whose kind is none of the Dynamo kinds this library validates."""
