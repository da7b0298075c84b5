"""Who the process is to the API server and to the people reading what it wrote.

The generic core never names a product: the composition root builds one `Identity` and hands it
to the `Client` (field manager, applied-digest annotation), the `EventRecorder` (component, field
manager), the `LeaderElector` (field manager) and the transport (User-Agent). Every name is a
field, so a test or a second operator built on the core can choose its own without touching it.
"""

from __future__ import annotations

import platform
import re
import sys
from dataclasses import dataclass

__all__ = ["Identity"]

# An annotation key's prefix is a DNS subdomain (RFC 1123), its name at most 63 characters.
_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_NAME = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")


@dataclass(frozen=True, slots=True)
class Identity:
    """Names the process uses in requests and in the objects it writes.

    - `name`: the product, e.g. `acme-operator`.
    - `field_manager`: the server-side-apply field manager of the controllers' writes.
    - `create_field_manager`: the field manager of the POSTs that create children, whose fields
      the `field_manager` adopts before it first changes them (`client/created.py`).
    - `user_agent`: the User-Agent of every request (the API server logs and audits it).
    - `event_component`: `source.component` / `reportingComponent` of Events.
    - `event_field_manager`, `leader_election_field_manager`: the field managers of Event and
      Lease writes, kept apart from the controllers' so `managedFields` say who wrote what.
    - `applied_digest_annotation`: the annotation `Client.apply_if_changed` stamps on children.
    """

    name: str
    field_manager: str
    create_field_manager: str
    user_agent: str
    event_component: str
    event_field_manager: str
    leader_election_field_manager: str
    applied_digest_annotation: str

    def __post_init__(self) -> None:
        prefix, _, key = self.applied_digest_annotation.rpartition("/")
        if not (prefix and _SUBDOMAIN.match(prefix) and _NAME.match(key)):
            raise ValueError(
                f"applied_digest_annotation {self.applied_digest_annotation!r} is not a "
                "prefixed annotation key (<dns-subdomain>/<name>)"
            )
        names = ("name", "field_manager", "create_field_manager", "user_agent", "event_component")
        for field in names:
            if not getattr(self, field):
                raise ValueError(f"Identity.{field} must not be empty")

    @classmethod
    def for_product(cls, name: str, *, domain: str, version: str) -> Identity:
        """The conventional names for `name` published under `domain` (e.g. `example.com`):
        field manager `name` (`name-create` for creations), Events from `name`, annotation
        `<domain>/applied-digest`, and a client-go style User-Agent
        `name/version (os/arch) python/x.y.z`."""
        return cls(
            name=name,
            field_manager=name,
            create_field_manager=f"{name}-create",
            user_agent=f"{name}/{version} ({_os_arch()}) python/{platform.python_version()}",
            event_component=name,
            event_field_manager=f"{name}-events",
            leader_election_field_manager=f"{name}-leader-election",
            applied_digest_annotation=f"{domain}/applied-digest",
        )


def _os_arch() -> str:
    return f"{sys.platform}/{platform.machine().lower() or 'unknown'}"
