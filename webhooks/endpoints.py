"""The one list of validating endpoints, read by both the server's routes and the manifests.

Keeping paths, webhook names and rules in a single table is what guarantees that the configuration
the apiserver is given points at routes the server actually serves.
"""

from __future__ import annotations

from dataclasses import dataclass

from dynamo_operator.api import GROUP, VERSION
from dynamo_operator.crd import CUSTOM_RESOURCES

__all__ = ["DEFAULT_PORT", "ENDPOINTS", "GROUP", "VERSION", "WebhookEndpoint"]

DEFAULT_PORT = 9443


@dataclass(frozen=True, slots=True)
class WebhookEndpoint:
    """One validated kind: where it is served and what the apiserver sends to it."""

    kind: str
    plural: str
    versions: tuple[str, ...] = (VERSION,)
    """The API versions the apiserver sends to it as they are (for a kind served at several, each
    request at the version the user wrote, so the messages name that version's fields)."""

    @property
    def path(self) -> str:
        # controller-runtime's convention, which the upstream operator and its Helm chart use; one
        # path per kind (named after the storage version) whatever versions it receives.
        group = GROUP.replace(".", "-")
        return f"/validate-{group}-{VERSION}-{self.kind.lower()}"

    @property
    def webhook_name(self) -> str:
        return f"v{self.kind.lower()}.kb.io"


# One endpoint per CRD the library defines, in the same order.
ENDPOINTS: tuple[WebhookEndpoint, ...] = tuple(
    WebhookEndpoint(
        kind=resource.kind,
        plural=resource.plural,
        versions=tuple(version.name for version in resource.versions),
    )
    for resource in CUSTOM_RESOURCES
)
