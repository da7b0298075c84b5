"""Errors of the commands that read manifests: ``YamlInputError``, a file that is not YAML the
commands can read; ``BadInputError``, a document that is not a Dynamo manifest.
"""

from __future__ import annotations

__all__ = ["BadInputError", "YamlInputError"]


class YamlInputError(ValueError):
    """The text cannot be read as JSON-compatible YAML within the limits; one line, with where."""


class BadInputError(Exception):
    """A file the commands cannot read; the message is the problem, without the file's name."""
