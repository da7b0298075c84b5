"""Operator-wide settings that change what the builders produce.

Filled from command-line flags by the composition root (and by ``dynamo-operator render``), and from
API discovery for ``available_apis``. Frozen so one value can be shared by every reconcile.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

OptionalApi = Literal["lws", "volcano", "istio"]
"""APIs the operator uses only when the cluster serves them: LeaderWorkerSet, Volcano, Istio."""

ALL_OPTIONAL_APIS: frozenset[OptionalApi] = frozenset({"lws", "volcano", "istio"})


@dataclass(frozen=True, slots=True)
class OperatorSettings:
    nats_addr: str | None = None
    etcd_addr: str | None = None
    ingress_controller_class_name: str | None = None
    ingress_host_suffix: str | None = None
    istio_virtual_service_gateway: str | None = None
    available_apis: frozenset[OptionalApi] = ALL_OPTIONAL_APIS
