"""Who may change the replicas of a service a DynamoGraphDeploymentScalingAdapter scales.

While a service has an adapter (``scalingAdapter.enabled: true`` at v1alpha1, ``scalingAdapter``
present at v1beta1, in the graph as stored: the request's old object), the adapter is the source
of truth of its replicas: its reconciler writes the adapter's value into the graph, and a replica
count edited in the graph would be undone (or, worse, fight an HPA). So an UPDATE that changes
that service's replicas is refused, with a message naming the field and the adapter to scale
instead, unless it comes from a replica writer:

- the operator itself, which writes the adapter's value (in a cluster, its service account
  ``system:serviceaccount:<namespace>:<account>``);
- a planner, ``system:serviceaccount:<any namespace>:planner-serviceaccount`` (the account the
  operator makes for planners; a planner without an adapter patches the graph directly);
- any username given with ``--replica-writer`` (an operator running outside the cluster, a GitOps
  controller that owns the replicas).

Both objects are read at the version the request carries (the API server sends the old and new
object at the same version): ``spec.services.<name>.replicas`` at v1alpha1,
``spec.components[i].replicas`` at v1beta1, 1 when unset, so the refusal names the field where the
user wrote it. A service added or removed, or one whose adapter the update turns on, is not
concerned; turning the adapter off takes one update, changing the replicas the next.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from dynamo_operator.api.constants import BETA_API_VERSION
from dynamo_operator.builders import (
    scales_through_adapter,
    scaling_adapter_name,
    service_replicas,
)
from dynamo_operator.constants import PLANNER_SERVICE_ACCOUNT_NAME

__all__ = ["PLANNERS_ONLY", "ReplicaWriters", "service_account_username"]

_PLANNER = re.compile(
    rf"^system:serviceaccount:[a-z0-9]([-a-z0-9]*[a-z0-9])?:{re.escape(PLANNER_SERVICE_ACCOUNT_NAME)}$"
)


def service_account_username(namespace: str, name: str) -> str:
    """The username the API server gives a service account's requests."""
    return f"system:serviceaccount:{namespace}:{name}"


@dataclass(frozen=True, slots=True)
class _Replicas:
    """One service's replicas as an object states them."""

    path: str
    """Where the user writes them: ``spec.services.X.replicas``, ``spec.components[0].replicas``."""
    replicas: int
    adapter: bool
    """An adapter owns them."""


@dataclass(frozen=True, slots=True)
class ReplicaWriters:
    """The identities allowed to change replicas an adapter owns: planners always, and
    ``usernames`` (the operator's own, ``--replica-writer``)."""

    usernames: frozenset[str] = frozenset()

    @classmethod
    def of(
        cls,
        extra: Iterable[str] = (),
        *,
        operator_namespace: str | None = None,
        operator_service_account: str | None = None,
    ) -> ReplicaWriters:
        """The operator's service account (when it runs in a cluster: both known) and
        ``extra`` usernames."""
        usernames = {name for name in extra if name}
        if operator_namespace and operator_service_account:
            usernames.add(service_account_username(operator_namespace, operator_service_account))
        return cls(frozenset(usernames))

    def may_write(self, username: str) -> bool:
        return username in self.usernames or bool(_PLANNER.match(username))

    def refusal(self, username: str, new: Mapping[str, Any], old: Mapping[str, Any]) -> str | None:
        """Why ``username`` may not make this update of a graph, or None when it may."""
        if self.may_write(username):
            return None
        metadata = old.get("metadata")
        # A malformed oldObject is the validators' to refuse (400), not a reason to fail here.
        graph_name = str(metadata.get("name") or "") if isinstance(metadata, Mapping) else ""
        before, after = _services(old), _services(new)
        problems = [
            _problem(graph_name, name, after[name])
            for name, stated in before.items()
            if stated.adapter and name in after and after[name].replicas != stated.replicas
        ]
        return "; ".join(problems) or None


def _problem(graph_name: str, service_name: str, stated: _Replicas) -> str:
    adapter = scaling_adapter_name(graph_name, service_name)
    return (
        f"{stated.path}: cannot be changed while service {service_name} scales through "
        f"DynamoGraphDeploymentScalingAdapter {adapter} (scalingAdapter), which owns its "
        f"replicas; scale the adapter instead: kubectl scale dgdsa {adapter} "
        f"--replicas={stated.replicas}"
    )


def _services(graph: Mapping[str, Any]) -> dict[str, _Replicas]:
    spec = graph.get("spec")
    if not isinstance(spec, Mapping):
        return {}
    if graph.get("apiVersion") == BETA_API_VERSION:
        return _components(spec.get("components"))
    services = spec.get("services")
    if not isinstance(services, Mapping):
        return {}
    return {
        str(name): _Replicas(
            f"spec.services.{name}.replicas",
            service_replicas(service),
            scales_through_adapter(service),
        )
        for name, service in services.items()
        if isinstance(service, Mapping)
    }


def _components(components: object) -> dict[str, _Replicas]:
    """v1beta1: a list keyed by ``name``; ``scalingAdapter: {}`` (present) turns the adapter on."""
    if not isinstance(components, list):
        return {}
    found: dict[str, _Replicas] = {}
    for index, component in enumerate(components):
        if not isinstance(component, Mapping) or not isinstance(component.get("name"), str):
            continue
        found[component["name"]] = _Replicas(
            f"spec.components[{index}].replicas",
            service_replicas(component),
            isinstance(component.get("scalingAdapter"), Mapping),
        )
    return found


PLANNERS_ONLY = ReplicaWriters()
"""No identity but the planners': the strictest policy, for a server told of no other."""
