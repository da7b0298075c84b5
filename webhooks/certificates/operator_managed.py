"""Operator-managed certificates: a Secret the operator keeps valid, and the CA injected for it.

Every replica runs this (webhooks are served by all replicas, not only the leader). Writes use the
Secret's resourceVersion, so when two replicas rotate at once one wins with 409 for the other,
which re-reads and serves what won: all replicas converge on the Secret's content. The caBundle of
every ValidatingWebhookConfiguration labelled with our namespace is patched when it differs,
which also repairs a bundle reset by a Helm upgrade.

Talks to Kubernetes through kr8s directly (the webhooks package never imports the manager).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
import anyio.abc
import httpx
import kr8s.asyncio
import structlog
from kr8s import APITimeoutError, ServerError

from webhooks.certificates.rotation import CertificatePolicy, ManagedCertificates, plan_certificates
from webhooks.certificates.tls import ReloadableServerTLS
from webhooks.manifests import OPERATOR_NAMESPACE_LABEL

_log = structlog.get_logger("webhooks.certificates")

SECRET_NAME = "webhook-server-cert"
DEFAULT_CHECK_INTERVAL = timedelta(minutes=10)
_RETRY_INITIAL, _RETRY_MAX = 0.5, 30.0
_WEBHOOK_CONFIGURATIONS = "validatingwebhookconfigurations"
_ADMISSION_API = "admissionregistration.k8s.io/v1"


class OperatorManagedCertificates:
    """Keeps ``<namespace>/webhook-server-cert`` valid, injects its CA, serves its pair."""

    def __init__(
        self,
        *,
        namespace: str,
        policy: CertificatePolicy,
        secret_name: str = SECRET_NAME,
        check_interval: timedelta = DEFAULT_CHECK_INTERVAL,
        api: kr8s.asyncio.Api | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.namespace = namespace
        self.policy = policy
        self.secret_name = secret_name
        self._check_interval = check_interval
        self._api = api
        self._clock = clock

    async def run(
        self,
        tls: ReloadableServerTLS,
        *,
        task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        api = self._api or await kr8s.asyncio.api()
        started = False
        retry_delay = _RETRY_INITIAL
        while True:
            try:
                current = await self.ensure(api)
                if tls.load(current.serving.cert_pem, current.serving.key_pem):
                    _log.info(
                        "serving certificate loaded", not_after=str(current.serving.not_after)
                    )
            except (ServerError, APITimeoutError, httpx.TransportError, OSError) as error:
                _log.error("certificate reconciliation failed", error=str(error))
                await anyio.sleep(retry_delay)
                retry_delay = min(retry_delay * 2, _RETRY_MAX)
                continue
            retry_delay = _RETRY_INITIAL
            if not started:
                task_status.started()
                started = True
            await anyio.sleep(self._seconds_until_next_check(current))

    async def ensure(self, api: kr8s.asyncio.Api) -> ManagedCertificates:
        """One pass: make the Secret hold good certificates, inject the CA; return the content."""
        current = await self._ensure_secret(api)
        await self._inject_ca_bundle(api, current.ca_bundle_pem or current.ca.cert_pem)
        return current

    def _seconds_until_next_check(self, current: ManagedCertificates) -> float:
        until_due = (current.renewal_due(self.policy) - self._clock()).total_seconds()
        return max(1.0, min(self._check_interval.total_seconds(), until_due))

    async def _ensure_secret(self, api: kr8s.asyncio.Api) -> ManagedCertificates:
        for _attempt in range(5):
            secret = await self._read_secret(api)
            data = secret.get("data") if secret else None
            existing = ManagedCertificates.from_secret_data(data)
            planned = plan_certificates(existing, self.policy, self._clock())
            if planned is existing:
                return planned
            try:
                await self._write_secret(api, secret, planned)
            except ServerError as error:
                if _status_code(error) == 409:
                    continue  # another replica wrote first: serve what it wrote
                raise
            _log.info(
                "webhook certificates written", secret=self.secret_name, namespace=self.namespace
            )
            return planned
        raise ServerError(f"Secret {self.namespace}/{self.secret_name} kept changing under us")

    async def _read_secret(self, api: kr8s.asyncio.Api) -> dict[str, Any] | None:
        try:
            async with api.call_api(
                "GET", version="v1", namespace=self.namespace, url=f"secrets/{self.secret_name}"
            ) as response:
                secret: dict[str, Any] = response.json()
                return secret
        except ServerError as error:
            if _status_code(error) == 404:
                return None
            raise

    async def _write_secret(
        self, api: kr8s.asyncio.Api, existing: dict[str, Any] | None, planned: ManagedCertificates
    ) -> None:
        body: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": self.secret_name, "namespace": self.namespace},
            "type": "kubernetes.io/tls",
            "data": planned.to_secret_data(),
        }
        if existing is None:
            method, url = "POST", "secrets"
        else:
            metadata = existing.get("metadata", {})
            body["metadata"] = {**metadata, "resourceVersion": metadata.get("resourceVersion")}
            body["type"] = existing.get("type", "kubernetes.io/tls")
            method, url = "PUT", f"secrets/{self.secret_name}"
        async with api.call_api(method, version="v1", namespace=self.namespace, url=url, json=body):
            pass

    async def _inject_ca_bundle(self, api: kr8s.asyncio.Api, ca_bundle_pem: bytes) -> None:
        encoded = base64.b64encode(ca_bundle_pem).decode()
        selector = f"{OPERATOR_NAMESPACE_LABEL}={self.namespace}"
        async with api.call_api(
            "GET",
            version=_ADMISSION_API,
            url=_WEBHOOK_CONFIGURATIONS,
            params={"labelSelector": selector},
        ) as response:
            configurations = response.json().get("items", [])
        for configuration in configurations:
            patch = _ca_bundle_patch(configuration, encoded)
            if not patch:
                continue
            name = configuration["metadata"]["name"]
            async with api.call_api(
                "PATCH",
                version=_ADMISSION_API,
                url=f"{_WEBHOOK_CONFIGURATIONS}/{name}",
                content=json.dumps(patch).encode(),
                headers={"Content-Type": "application/json-patch+json"},
            ):
                pass
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


def _status_code(error: ServerError) -> int | None:
    response = getattr(error, "response", None)
    return getattr(response, "status_code", None)
