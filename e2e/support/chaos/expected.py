"""What a namespace must hold after the chaos, and how what it holds differs, pure.

`expected_children` runs the operator's own builders offline (`render_objects`) on the user's
last graphs and models of a namespace: every object the operator should have made, by kind and
name, with its owners by kind and name. `audit` compares that with what the API server holds:

- missing: an expected object that does not exist;
- duplicate: an object of the operator's kinds that should not exist though its owner does (a
  component of a removed service, a Deployment beside a LeaderWorkerSet...);
- orphan: an owner reference to an object that no longer exists (a previous incarnation of a
  graph deleted and recreated under the same name), or an unexpected object whose owners are gone;
- stale (a lost update): an expected object whose fields differ from the builders' on a field
  the builders set (compared as the operator compares before applying, `find_difference`), or
  whose owners are not the expected ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from dynamo_operator.render import render_objects
from dynamo_operator.settings import OperatorSettings
from manager.runtime.client import find_difference

Key = tuple[str, str]
"""(kind, name) of an object in the namespace."""

COMPARED_KINDS: Final = frozenset(
    {
        "DynamoComponentDeployment",
        "Deployment",
        "LeaderWorkerSet",
        "Service",
        "PersistentVolumeClaim",
        "ServiceAccount",
        "Role",
        "RoleBinding",
        "Ingress",
        "HorizontalPodAutoscaler",
    }
)
"""The kinds the operator creates in a graph's namespace; every object of these is accounted for
(except what Kubernetes makes itself, `NOT_OURS`)."""
NOT_OURS: Final = frozenset({("ServiceAccount", "default")})
OPERATOR_OWNER_KINDS: Final = frozenset(
    {"DynamoGraphDeployment", "DynamoComponentDeployment", "DynamoModel", "ServiceAccount"}
)
"""Who owns what the operator makes; an object owned by anything else (the headless Service the
LeaderWorkerSet controller makes for each group) is that controller's business."""
_NOT_COMPARED: Final = frozenset({"apiVersion", "kind", "metadata", "status"})


@dataclass
class Findings:
    missing: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    orphans: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)

    def extend(self, other: Findings) -> None:
        for name in ("missing", "duplicates", "orphans", "stale"):
            getattr(self, name).extend(getattr(other, name))

    def is_clean(self) -> bool:
        return not (self.missing or self.duplicates or self.orphans or self.stale)

    def summary(self, limit: int = 5) -> str:
        parts = [
            f"{name}={len(items)} {items[:limit]}"
            for name in ("missing", "duplicates", "orphans", "stale")
            if (items := getattr(self, name))
        ]
        return "; ".join(parts) or "clean"


def expected_children(
    namespace: str, documents: Sequence[Mapping[str, Any]], settings: OperatorSettings
) -> dict[Key, dict[str, Any]]:
    """Every object the operator makes for the namespace's graphs and models, by (kind, name)."""
    if not documents:
        return {}
    rendered = render_objects(documents, settings, default_namespace=namespace).objects
    return {(obj["kind"], obj["metadata"]["name"]): obj for obj in rendered}


def audit(
    namespace: str,
    expected: Mapping[Key, Mapping[str, Any]],
    actual: Iterable[Mapping[str, Any]],
    live_uids: Mapping[Key, str],
) -> Findings:
    """How the namespace's objects of `COMPARED_KINDS` (`actual`) differ from `expected`;
    `live_uids` are the uids of every object that exists there now (owners included)."""
    findings = Findings()
    seen: set[Key] = set()
    for obj in actual:
        key: Key = (obj["kind"], obj["metadata"]["name"])
        if key in NOT_OURS or key[0] not in COMPARED_KINDS:
            continue
        seen.add(key)
        where = f"{namespace}/{key[0]}/{key[1]}"
        owners = obj["metadata"].get("ownerReferences") or []
        if owners and not any(o["kind"] in OPERATOR_OWNER_KINDS for o in owners):
            continue
        dangling = [o for o in owners if live_uids.get((o["kind"], o["name"])) != o.get("uid")]
        if dangling:
            names = ", ".join(f"{o['kind']}/{o['name']}" for o in dangling)
            findings.orphans.append(f"{where} (owner gone: {names})")
        if key not in expected:
            if not dangling:
                findings.duplicates.append(where)
            continue
        difference = _difference(expected[key], obj)
        if difference is not None:
            findings.stale.append(f"{where}: {difference}")
    findings.missing += [
        f"{namespace}/{kind}/{name}" for kind, name in expected if (kind, name) not in seen
    ]
    return findings


def _difference(desired: Mapping[str, Any], live: Mapping[str, Any]) -> str | None:
    wanted = {_owner_key(o) for o in desired["metadata"].get("ownerReferences") or ()}
    owners = {_owner_key(o) for o in live["metadata"].get("ownerReferences") or ()}
    if wanted != owners:
        return f"owners {sorted(owners)}, expected {sorted(wanted)}"
    fields = {key: value for key, value in desired.items() if key not in _NOT_COMPARED}
    return find_difference(fields, live)


def _owner_key(reference: Mapping[str, Any]) -> tuple[str, str, bool]:
    return reference["kind"], reference["name"], bool(reference.get("controller"))
