"""Errors of the image-build rules, one family: ``ImageBuildError``.

- ``ImageBuildSettingsError``: an environment variable of the operator with a bad value (names it);
- ``BuilderConfigError``: a key of the ``dynamo-image-builder-config`` ConfigMap with a bad value;
- ``ArtifactManifestError``: the artifact's ``dynamo.yaml`` does not describe a graph (names the
  path in the file);
- ``ArtifactExpansionError``: the artifact and the graph cannot be combined.
Every message names what to fix; the controller puts it in a condition as it is. (A bad
``name:version`` raises ``dynamo_operator.InvalidComponentReferenceError``, also a ValueError.)
"""

from __future__ import annotations


class ImageBuildError(ValueError):
    """Base of every error of this package."""


class ImageBuildSettingsError(ImageBuildError):
    """An operator setting (environment variable) has a bad value."""


class BuilderConfigError(ImageBuildError):
    """The image builder ConfigMap has a bad value."""


class ArtifactManifestError(ImageBuildError):
    """The artifact's manifest is not what the operator can deploy."""


class ArtifactExpansionError(ImageBuildError):
    """The graph cannot be expanded with the artifact."""
