"""Keeps the conversion webhook of the multi-version CRDs pointing at this server, with its CA.

A CRD served at two versions converts through ``spec.conversion.webhook.clientConfig``; the CRD
chart installs it (before any operator exists) with the default Service and no CA. The process
that serves ``/convert`` points it at itself: in cluster, the webhook Service of its release and
either the CA it manages (operator-managed certificates) or cert-manager's cainjector
(``cert-manager.io/inject-ca-from``: the cainjector then fills ``caBundle`` and renews it); out of
cluster (``dynamo-operator webhook-server --configure-crd-conversion``), its URL and CA. A CRD
annotated for the cainjector keeps the CA the cainjector gives it, whatever the mode, as the
operator-managed certificates leave an annotated webhook configuration to it.

It watches the CRDs, so a CRD installed or reset later (``helm upgrade`` of the CRD chart, a
``kubectl apply`` of the generated files) is repaired at once. Only the fields it owns are
written, with a JSON merge patch: ``strategy``, the webhook's ``clientConfig`` and review
versions, and the injection annotation. Reads at the storage version (v1alpha1, what the operator
itself reads) never need the webhook; while it is away, reads at v1beta1 fail with the API
server's "conversion webhook ... failed" message, and that is all.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.abc

from dynamo_operator.crd import CONVERTIBLE_RESOURCES
from manager.runtime.backoff import Backoff
from manager.runtime.client.errors import KubeError, NotFound
from manager.runtime.client.rest import RestClient
from manager.runtime.clock import RealClock
from manager.runtime.kinds import CUSTOM_RESOURCE_DEFINITION
from manager.runtime.logging import get_logger
from webhooks.conversion import CONVERT_PATH

_log = get_logger(__name__)

FIELD_MANAGER = "dynamo-operator-crd-conversion"
CERT_MANAGER_INJECT_CA_FROM = "cert-manager.io/inject-ca-from"
WATCH_SECONDS = 300


def convertible_crd_names() -> tuple[str, ...]:
    """The CRDs served at more than one version: those that need the conversion webhook."""
    return tuple(resource.crd_name for resource in CONVERTIBLE_RESOURCES)


@dataclass(frozen=True, slots=True)
class ConversionTarget:
    """Where the API server sends ConversionReviews, and who vouches for the server's
    certificate: ``ca_bundle`` (PEM, returned by a callable because operator-managed CAs rotate)
    or ``cert_manager_certificate`` (``<namespace>/<Certificate>``, for the cainjector)."""

    client_config: Mapping[str, Any]
    ca_bundle: Callable[[], bytes | None] = lambda: None
    cert_manager_certificate: str | None = None

    @classmethod
    def service(
        cls,
        name: str,
        namespace: str,
        *,
        port: int = 443,
        ca_bundle: Callable[[], bytes | None] = lambda: None,
        cert_manager_certificate: str | None = None,
    ) -> ConversionTarget:
        service = {"name": name, "namespace": namespace, "path": CONVERT_PATH, "port": port}
        return cls({"service": service, "url": None}, ca_bundle, cert_manager_certificate)

    @classmethod
    def url(cls, base_url: str, ca_bundle_pem: bytes) -> ConversionTarget:
        config = {"url": base_url.rstrip("/") + CONVERT_PATH, "service": None}
        return cls(config, lambda: ca_bundle_pem)


def conversion_patch(crd: Mapping[str, Any], target: ConversionTarget) -> dict[str, Any] | None:
    """The merge patch that makes ``crd`` convert through ``target``; None when it already does."""
    client_config = {key: value for key, value in target.client_config.items()}
    annotations: dict[str, str | None] = {}
    if target.cert_manager_certificate is not None:
        annotations[CERT_MANAGER_INJECT_CA_FROM] = target.cert_manager_certificate
        if _owns_ca_bundle(crd):
            # Ours from operator-managed days: dropped, so the cainjector's is the only one.
            client_config["caBundle"] = None
    elif _left_to_cainjector(crd):
        pass  # as for webhook configurations: an annotated object's CA is the cainjector's
    elif (ca := target.ca_bundle()) is not None:
        client_config["caBundle"] = base64.b64encode(ca).decode()
    webhook = {"conversionReviewVersions": ["v1"], "clientConfig": client_config}
    wanted: dict[str, Any] = {"spec": {"conversion": {"strategy": "Webhook", "webhook": webhook}}}
    if annotations:
        wanted["metadata"] = {"annotations": annotations}
    return wanted if _differs(crd, wanted) else None


def _owns_ca_bundle(crd: Mapping[str, Any]) -> bool:
    """Whether this keeper's field manager wrote the CRD's caBundle."""
    for entry in (crd.get("metadata") or {}).get("managedFields") or ():
        if not isinstance(entry, Mapping) or entry.get("manager") != FIELD_MANAGER:
            continue
        fields: Any = entry.get("fieldsV1") or {}
        for step in ("f:spec", "f:conversion", "f:webhook", "f:clientConfig"):
            fields = fields.get(step) if isinstance(fields, Mapping) else None
        if isinstance(fields, Mapping) and "f:caBundle" in fields:
            return True
    return False


def _left_to_cainjector(crd: Mapping[str, Any]) -> bool:
    annotations = (crd.get("metadata") or {}).get("annotations") or {}
    return CERT_MANAGER_INJECT_CA_FROM in annotations


def _differs(current: Any, patch: Any) -> bool:
    """Whether applying the merge ``patch`` to ``current`` would change it."""
    if not isinstance(patch, Mapping):
        return bool(current != patch)
    if not isinstance(current, Mapping):
        return True
    for key, value in patch.items():
        if value is None:
            if key in current:
                return True
        elif _differs(current.get(key), value):
            return True
    return False


class CrdConversionKeeper:
    """Points ``crd_names`` at ``target`` now, and again whenever one of them changes.

    In the operator it runs on the leader only (``needs_leader_election``): standbys serve
    ``/convert`` like the leader, and one writer per cluster is what keeps two operators that
    disagree (a second cluster-wide install, a process run outside the cluster with webhooks)
    from re-pointing the CRDs at each other in turn. A manager without leader election runs it
    at once."""

    needs_leader_election = True

    def __init__(
        self, rest: RestClient, target: ConversionTarget, crd_names: Collection[str]
    ) -> None:
        self._rest = rest
        self._target = target
        self._names = frozenset(crd_names)
        self._watching: anyio.CancelScope | None = None
        self._ca_is_new = False

    def ca_changed(self) -> None:
        """The CA behind ``target.ca_bundle`` changed: every CRD gets it at once (the watch in
        progress ends, and the next pass lists every CRD again with the new CA)."""
        self._ca_is_new = True
        if self._watching is not None:
            self._watching.cancel()

    async def run(
        self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Runs until cancelled; ready at once (no request waits for a CRD to be patched)."""
        task_status.started()
        backoff = Backoff(RealClock())
        while True:
            try:
                await self._keep()
            except KubeError as error:
                # An API server restart breaks the watch (or refuses the list): a pass again
                # after a backoff, never the end of the process.
                _log.warning("keeping the CRDs' conversion webhook failed", error=str(error))
                await backoff.wait()

    async def _keep(self) -> None:
        self._ca_is_new = False  # a change from now on ends this pass
        listed, version = await self._rest.list_all(CUSTOM_RESOURCE_DEFINITION, None)
        missing = set(self._names)
        for crd in listed:
            missing.discard(crd["metadata"]["name"])
            await self.ensure(crd)
        if missing:
            _log.info("CRDs not installed yet", crds=sorted(missing))
        try:
            with anyio.CancelScope() as self._watching:
                if self._ca_is_new:
                    return
                async with self._rest.watch(
                    CUSTOM_RESOURCE_DEFINITION,
                    None,
                    resource_version=version,
                    timeout_seconds=WATCH_SECONDS,
                ) as events:
                    async for event in events:
                        if event.type in ("ADDED", "MODIFIED"):
                            await self.ensure(event.object)
        finally:
            self._watching = None

    async def ensure(self, crd: Mapping[str, Any]) -> bool:
        """Patch ``crd`` when it is one of ours and does not point at the target; True if
        patched."""
        name = (crd.get("metadata") or {}).get("name")
        if name not in self._names:
            return False
        patch = conversion_patch(crd, self._target)
        if patch is None:
            return False
        try:
            await self._rest.merge_patch(
                CUSTOM_RESOURCE_DEFINITION, None, name, patch, field_manager=FIELD_MANAGER
            )
        except NotFound:
            return False
        _log.info("CRD conversion webhook configured", crd=name)
        return True
