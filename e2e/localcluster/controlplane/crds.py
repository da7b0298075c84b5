"""Installing CustomResourceDefinitions: the harness's one CRD installer.

Every CRD a test cluster gets goes through `install_crds`: the operator's (the CRD chart's
generated files, `e2e.support.crds`), LeaderWorkerSet's (the local control plane), cert-manager's,
the ServiceMonitor's (the chart install) and stand-ins for optional APIs (the RBAC audit). Each is
created unless present (one a parallel installer created meanwhile is fine: several test workers
may share an external cluster) and waited for until it is Established, so the next request for
its kind is served.

The client is the local cluster's `AdminClient`, or anything with `CrdClient`'s two calls
(`e2e.support.crds` adapts kr8s, for a cluster the harness did not start).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from e2e.localcluster.conditions import is_condition_true
from e2e.localcluster.controlplane.admin_client import AdminClient, ApiError
from e2e.localcluster.waiting import wait_for

__all__ = ["CRD_PATH", "CrdClient", "install_crds"]

CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
ESTABLISHED_TIMEOUT = 120.0
"""A CRD is Established within a second or two; generous for a loaded 2-core machine."""


class CrdClient(Protocol):
    def read_crd(self, name: str) -> Mapping[str, Any] | None:
        """The CRD as the API server has it, or None when there is none."""

    def create_crd(self, document: Mapping[str, Any]) -> bool:
        """Create it; False when one of that name exists already."""


def install_crds(
    client: AdminClient | CrdClient,
    documents: Iterable[Mapping[str, Any]],
    *,
    timeout: float = ESTABLISHED_TIMEOUT,
) -> list[Mapping[str, Any]]:
    """Create each CRD unless present and wait until it is Established; the CRDs as read then.
    Idempotent: a CRD already there is kept as it is."""
    crds = _AdminCrds(client) if isinstance(client, AdminClient) else client
    installed = []
    for document in documents:
        name = str(document["metadata"]["name"])
        if crds.read_crd(name) is None:
            crds.create_crd(document)

        def established(name: str = name) -> Mapping[str, Any] | None:
            crd = crds.read_crd(name)
            return crd if is_condition_true(crd, "Established") else None

        installed.append(wait_for(f"CRD {name} Established", established, timeout=timeout))
    return installed


class _AdminCrds:
    def __init__(self, client: AdminClient) -> None:
        self._client = client

    def read_crd(self, name: str) -> Mapping[str, Any] | None:
        return self._client.find(f"{CRD_PATH}/{name}")

    def create_crd(self, document: Mapping[str, Any]) -> bool:
        try:
            self._client.create(CRD_PATH, dict(document))
        except ApiError as error:
            if error.status != 409:
                raise
            return False
        return True
