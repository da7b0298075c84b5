"""Operator-managed certificates: a Secret the operator keeps valid, and the CA injected for it.

Every replica runs this (webhooks are served by all replicas, not only the leader). Writes use the
Secret's resourceVersion, so when two replicas rotate at once one wins and the other gets
`Conflict` (or `AlreadyExists` when both create), re-reads and serves what won: all replicas
converge on the Secret's content. The caBundle of every ValidatingWebhookConfiguration labelled
with our namespace is patched when it differs, which also repairs a bundle reset by a Helm upgrade.

cert-manager's objects are never taken over: a Secret cert-manager issues into (annotated
``cert-manager.io/certificate-name``) is not replaced, the pass fails with one log line and is
retried with backoff, so the webhook server stays unready instead of serving a certificate the
apiserver will not trust; a configuration whose CA the cainjector fills (annotated
``cert-manager.io/inject-ca-from[-secret]``) is left to it. Either means cert-manager mode was
meant: serve the mounted Secret's files (`DirectoryCertificates`) instead.

Talks to Kubernetes through the manager's generic core, so the process has one HTTP stack to the
API server: the `RestClient` shared per kr8s `Api`, its typed errors, and the informers' jittered
`Backoff` between failed passes.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
import anyio.abc
import kr8s.asyncio

from manager.runtime.backoff import Backoff
from manager.runtime.client.errors import AlreadyExists, Conflict, KubeError, NotFound
from manager.runtime.client.rest import RestClient
from manager.runtime.clock import RealClock
from manager.runtime.kinds import SECRET
from manager.runtime.logging import get_logger
from manager.runtime.process_owner import ProcessOwner, owned_metadata
from manager.runtime.tls.server_context import ReloadableServerTLS
from webhooks.certificates.rotation import CertificatePolicy, ManagedCertificates, plan_certificates
from webhooks.errors import SecretOwnedElsewhereError
from webhooks.manifests import OPERATOR_NAMESPACE_LABEL, VALIDATING_WEBHOOK_CONFIGURATION

_log = get_logger(__name__)

SECRET_NAME = "webhook-server-cert"
FIELD_MANAGER = "dynamo-operator-webhook-certificates"
DEFAULT_CHECK_INTERVAL = timedelta(minutes=10)
WATCH_SECONDS = 300  # a watch of the configurations is reopened (from a fresh list) this often
WRITE_ATTEMPTS = 5  # races lost in a row before a pass gives up (and is retried after a backoff)
CERT_MANAGER_CERTIFICATE_ANNOTATION = "cert-manager.io/certificate-name"
"""Set by cert-manager on every Secret it issues a Certificate into."""
CERT_MANAGER_INJECTION_ANNOTATIONS = (
    "cert-manager.io/inject-ca-from",
    "cert-manager.io/inject-ca-from-secret",
)


class OperatorManagedCertificates:
    """Keeps ``<namespace>/webhook-server-cert`` valid, injects its CA, serves its pair.

    ``api`` is a kr8s ``Api`` (or a ``RestClient``); None means kr8s's default configuration.
    ``clock`` is the wall clock certificates are checked against; ``backoff`` spaces out the
    passes that fail (the API server is unreachable, RBAC says no...).
    """

    def __init__(
        self,
        *,
        namespace: str,
        policy: CertificatePolicy,
        secret_name: str = SECRET_NAME,
        check_interval: timedelta = DEFAULT_CHECK_INTERVAL,
        api: Any = None,
        field_manager: str = FIELD_MANAGER,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        backoff: Backoff | None = None,
        owner: ProcessOwner | None = None,
    ) -> None:
        self.namespace = namespace
        self.policy = policy
        self.secret_name = secret_name
        self._check_interval = check_interval
        self._api = api
        self._field_manager = field_manager
        self._clock = clock
        self._backoff = backoff or Backoff(RealClock())
        self._owner = owner
        self._left_to_cainjector: set[str] = set()
        self._ca_bundle: str | None = None
        """The base64 CA bundle of the last pass: what every labelled configuration gets."""
        self._ca_listeners: list[Callable[[], None]] = []

    @property
    def ca_bundle_pem(self) -> bytes | None:
        """The CA bundle (PEM) of the last pass; None before the first."""
        return None if self._ca_bundle is None else base64.b64decode(self._ca_bundle)

    def add_ca_listener(self, listener: Callable[[], None]) -> None:
        """``listener`` is called whenever the CA bundle changes (the first one included)."""
        self._ca_listeners.append(listener)

    async def run(
        self,
        tls: ReloadableServerTLS,
        *,
        task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        """Load good certificates into ``tls`` (reported started after the first), then keep
        them good: re-check when renewal is due, at least every ``check_interval``; meanwhile
        inject the CA into every labelled configuration as soon as it appears or changes."""
        api = self._api if self._api is not None else await kr8s.asyncio.api()
        rest = RestClient.for_api(api)
        async with anyio.create_task_group() as group:
            started = False
            while True:
                try:
                    current = await self.ensure(rest)
                except (KubeError, SecretOwnedElsewhereError) as error:
                    _log.error("certificate reconciliation failed", error=str(error))
                    await self._backoff.wait()
                    continue
                if tls.load(current.serving.cert_pem, current.serving.key_pem):
                    _log.info(
                        "serving certificate loaded", not_after=str(current.serving.not_after)
                    )
                if not started:
                    # A configuration created after our pass (helm creates it after the
                    # Deployment, and a Pod can start first) or reset later gets the CA at once,
                    # not at the next check.
                    group.start_soon(self._keep_injected, rest)
                    task_status.started()
                    started = True
                await anyio.sleep(self._seconds_until_next_check(current))

    async def _keep_injected(self, rest: RestClient) -> None:
        backoff = Backoff(RealClock())
        selector = f"{OPERATOR_NAMESPACE_LABEL}={self.namespace}"
        while True:
            try:
                listed, version = await rest.list_all(
                    VALIDATING_WEBHOOK_CONFIGURATION, None, label_selector=selector
                )
                for configuration in listed:  # any created since the last pass listed them
                    if self._ca_bundle is not None:
                        await self._inject_into(rest, configuration, self._ca_bundle)
                async with rest.watch(
                    VALIDATING_WEBHOOK_CONFIGURATION,
                    None,
                    resource_version=version,
                    timeout_seconds=WATCH_SECONDS,
                    label_selector=selector,
                ) as events:
                    async for event in events:
                        if event.type in ("ADDED", "MODIFIED") and self._ca_bundle is not None:
                            await self._inject_into(rest, event.object, self._ca_bundle)
            except KubeError as error:
                _log.warning("watching webhook configurations failed", error=str(error))
                await backoff.wait()

    async def ensure(self, rest: RestClient) -> ManagedCertificates:
        """One pass: make the Secret hold good certificates, inject the CA; return the content."""
        current = await self._ensure_secret(rest)
        await self._inject_ca_bundle(rest, current.ca_bundle_pem or current.ca.cert_pem)
        return current

    def _seconds_until_next_check(self, current: ManagedCertificates) -> float:
        until_due = (current.renewal_due(self.policy) - self._clock()).total_seconds()
        return max(1.0, min(self._check_interval.total_seconds(), until_due))

    async def _ensure_secret(self, rest: RestClient) -> ManagedCertificates:
        for attempt in range(1, WRITE_ATTEMPTS + 1):
            secret = await self._read_secret(rest)
            self._refuse_cert_managers(secret)
            existing = ManagedCertificates.from_secret_data(secret.get("data") if secret else None)
            planned = plan_certificates(existing, self.policy, self._clock())
            if planned is existing:
                return planned
            try:
                await self._write_secret(rest, secret, planned)
            except (Conflict, AlreadyExists):
                if attempt == WRITE_ATTEMPTS:
                    raise
                continue  # another replica wrote first: serve what it wrote
            _log.info(
                "webhook certificates written", secret=self.secret_name, namespace=self.namespace
            )
            return planned
        raise AssertionError("unreachable")

    def _refuse_cert_managers(self, secret: dict[str, Any] | None) -> None:
        annotations = ((secret or {}).get("metadata") or {}).get("annotations") or {}
        certificate = annotations.get(CERT_MANAGER_CERTIFICATE_ANNOTATION)
        if certificate is not None:
            raise SecretOwnedElsewhereError(
                f"Secret {self.namespace}/{self.secret_name} is issued by cert-manager "
                f"(Certificate {certificate}); not replacing it: serve its mounted files "
                "(cert-manager mode) instead"
            )

    async def _read_secret(self, rest: RestClient) -> dict[str, Any] | None:
        try:
            return await rest.get(SECRET, self.namespace, self.secret_name)
        except NotFound:
            return None

    async def _write_secret(
        self, rest: RestClient, existing: dict[str, Any] | None, planned: ManagedCertificates
    ) -> None:
        data = planned.to_secret_data()
        if existing is None:
            # Owned by the installation, the garbage collector removes it with it.
            metadata = await owned_metadata(
                self._owner, {"name": self.secret_name, "namespace": self.namespace}
            )
            body = {
                "apiVersion": "v1",
                "kind": "Secret",
                "metadata": metadata,
                "type": "kubernetes.io/tls",
                "data": data,
            }
            await rest.create(SECRET, body, field_manager=self._field_manager)
        else:
            # Guarded by the resourceVersion we read: a concurrent write makes this a Conflict.
            body = {**existing, "data": data}
            await rest.replace(SECRET, body, field_manager=self._field_manager)

    async def _inject_ca_bundle(self, rest: RestClient, ca_bundle_pem: bytes) -> None:
        encoded = base64.b64encode(ca_bundle_pem).decode()
        if encoded != self._ca_bundle:
            self._ca_bundle = encoded
            for listener in self._ca_listeners:
                listener()
        configurations, _ = await rest.list_all(
            VALIDATING_WEBHOOK_CONFIGURATION,
            None,
            label_selector=f"{OPERATOR_NAMESPACE_LABEL}={self.namespace}",
        )
        for configuration in configurations:
            await self._inject_into(rest, configuration, encoded)

    async def _inject_into(
        self, rest: RestClient, configuration: dict[str, Any], encoded: str
    ) -> None:
        name = configuration["metadata"]["name"]
        annotations = configuration["metadata"].get("annotations") or {}
        if any(key in annotations for key in CERT_MANAGER_INJECTION_ANNOTATIONS):
            if name not in self._left_to_cainjector:
                _log.warning("CA bundle left to cert-manager's cainjector", configuration=name)
                self._left_to_cainjector.add(name)
            return
        operations = _ca_bundle_patch(configuration, encoded)
        if not operations:
            return
        try:
            await rest.json_patch(
                VALIDATING_WEBHOOK_CONFIGURATION,
                None,
                name,
                operations,
                field_manager=self._field_manager,
            )
        except NotFound:
            return  # deleted since we read it: nothing to inject into
        _log.info("CA bundle injected", configuration=name)


def _ca_bundle_patch(configuration: dict[str, Any], encoded: str) -> list[dict[str, Any]]:
    """JSON-patch operations setting caBundle where it differs; each guarded by the webhook's name
    so a concurrent reordering of the list makes the patch fail instead of hitting another hook."""
    operations: list[dict[str, Any]] = []
    for index, webhook in enumerate(configuration.get("webhooks") or []):
        if webhook.get("clientConfig", {}).get("caBundle") == encoded:
            continue
        operations.append(
            {"op": "test", "path": f"/webhooks/{index}/name", "value": webhook["name"]}
        )
        operations.append(
            {"op": "add", "path": f"/webhooks/{index}/clientConfig/caBundle", "value": encoded}
        )
    return operations
