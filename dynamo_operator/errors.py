"""Errors of the pure library's top-level modules (its subpackages each have their own
``errors.py``): ``RenderError``, a manifest ``render`` cannot build objects from;
``MalformedDockerConfigError``, a pull Secret whose docker config cannot be read;
``InvalidComponentReferenceError``, an artifact reference that is not ``name:version``.
"""

from __future__ import annotations

__all__ = ["InvalidComponentReferenceError", "MalformedDockerConfigError", "RenderError"]


class RenderError(ValueError):
    """A document cannot be rendered; the message names the document and the field."""


class MalformedDockerConfigError(ValueError):
    """A dockerconfigjson Secret whose payload is not base64-encoded JSON with an ``auths`` map."""


class InvalidComponentReferenceError(ValueError):
    """A DynamoComponent reference is not ``name:version``; the message says which part and why."""
