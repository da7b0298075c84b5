"""Errors of the builders.

    BuildError                      base class; the component cannot be built as specified
    └── InvalidComponentError       a field holds a value no Kubernetes object can express
    ShellSyntaxError                a container's script does not parse (``shell_script``); caught
                                    inside the builders: its launch command is then not found

Validation rejects these inputs up front; the builders still check so that a DCD written without
the webhook fails with a clear message naming the field instead of an invalid object.
"""

from __future__ import annotations


class BuildError(ValueError):
    """The component cannot be built as specified."""


class InvalidComponentError(BuildError):
    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class ShellSyntaxError(ValueError):
    """A shell script does not parse: an unterminated quote or substitution."""
