"""The workers serving a base model, read from the EndpointSlices of its headless Service.

The cluster publishes the EndpointSlices of ``dynamo-model-<hash>`` with the Service's labels,
hash label included; any slice with that label counts (a hand-made one behind a selector-less
Service too). A worker is an endpoint that is backed by a Pod (``targetRef``) and ready (an
absent ``ready`` means ready, as the EndpointSlice API defines it), at the slice's port named
``system`` (9090 when the slice names none). An endpoint listed by several slices is one worker.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from dynamo_operator.constants import PortNames, Ports

SERVICE_NAME_LABEL = "kubernetes.io/service-name"
"""The label naming the Service an EndpointSlice belongs to."""


@dataclass(frozen=True, slots=True)
class WorkerEndpoint:
    """One worker pod, reachable at ``address`` (``http://10.0.1.5:9090``)."""

    address: str
    pod_name: str
    pod_uid: str = ""

    @property
    def key(self) -> str:
        """Identity of this worker process: a pod that comes back at the same address is the
        same worker only if it is the same pod."""
        return f"{self.pod_uid or self.pod_name}@{self.address}"


def find_worker_endpoints(slices: Iterable[Mapping[str, Any]]) -> list[WorkerEndpoint]:
    """The ready, pod-backed endpoints of ``slices``, one per address, sorted by address."""
    found: dict[str, WorkerEndpoint] = {}
    for endpoint_slice in slices:
        if endpoint_slice.get("addressType") == "FQDN":
            continue
        port = _system_port(endpoint_slice)
        for endpoint in endpoint_slice.get("endpoints") or ():
            target = endpoint.get("targetRef") or {}
            addresses = endpoint.get("addresses") or ()
            if target.get("kind") != "Pod" or not addresses or not _is_ready(endpoint):
                continue
            address = _url(str(addresses[0]), port)
            found.setdefault(
                address,
                WorkerEndpoint(
                    address, str(target.get("name") or ""), str(target.get("uid") or "")
                ),
            )
    return [found[address] for address in sorted(found)]


def endpoint_service_names(slices: Iterable[Mapping[str, Any]]) -> list[str]:
    """The Services the slices belong to, sorted."""
    return sorted(
        {
            str(name)
            for endpoint_slice in slices
            if (
                name := ((endpoint_slice.get("metadata") or {}).get("labels") or {}).get(
                    SERVICE_NAME_LABEL
                )
            )
        }
    )


def _system_port(endpoint_slice: Mapping[str, Any]) -> int:
    for port in endpoint_slice.get("ports") or ():
        if port.get("name") == PortNames.SYSTEM and isinstance(port.get("port"), int):
            return int(port["port"])
    return Ports.SYSTEM


def _is_ready(endpoint: Mapping[str, Any]) -> bool:
    return (endpoint.get("conditions") or {}).get("ready") is not False


def _url(ip: str, port: int) -> str:
    host = f"[{ip}]" if ":" in ip else ip
    return f"http://{host}:{port}"
