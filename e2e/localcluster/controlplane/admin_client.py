"""A minimal synchronous HTTPS client for the control plane's own bootstrap work.

The harness must check readiness and create nodes and CRDs before any project code runs, with the
admin certificate it just minted; the standard library is enough for that and keeps the harness
independent of the client library under test.
"""

from __future__ import annotations

import json
import ssl
import time
import urllib.error
import urllib.request
from typing import Any

from e2e.localcluster.controlplane.pki import Pki

_RETRIES_OF_429 = 10

_JSON = "application/json"


class ApiError(Exception):
    """The apiserver answered with an HTTP error status."""

    def __init__(self, status: int, body: str) -> None:
        super().__init__(f"HTTP {status}: {body[:500]}")
        self.status = status
        self.body = body


class AdminClient:
    def __init__(self, server: str, pki: Pki, *, timeout: float = 10.0) -> None:
        self.server = server.rstrip("/")
        self._timeout = timeout
        self._tls = ssl.create_default_context(cafile=str(pki.ca.cert))
        self._tls.load_cert_chain(str(pki.admin.cert), str(pki.admin.key))

    def get(self, path: str) -> dict[str, Any]:
        return self._json("GET", path)

    def find(self, path: str) -> dict[str, Any] | None:
        """GET, or None when the object is not there (404)."""
        try:
            return self.get(path)
        except ApiError as error:
            if error.status == 404:
                return None
            raise

    def get_text(self, path: str) -> str:
        """GET a non-JSON answer (a Pod's log)."""
        return self._request("GET", path).decode(errors="replace")

    def create(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        return self._json("POST", path, json.dumps(body).encode(), _JSON)

    def delete(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        data = json.dumps(body).encode() if body is not None else None
        return self._json("DELETE", path, data)

    def patch(
        self, path: str, body: dict[str, Any], content_type: str = "application/merge-patch+json"
    ) -> dict[str, Any]:
        return self._json("PATCH", path, json.dumps(body).encode(), content_type)

    def create_yaml(self, path: str, yaml_text: str) -> dict[str, Any]:
        """POST a YAML manifest as is: the apiserver decodes YAML itself."""
        return self._json("POST", path, yaml_text.encode(), "application/yaml")

    def is_ok(self, path: str) -> bool:
        """True when GET path answers 2xx; connection errors and error statuses are False."""
        try:
            self._request("GET", path)
        except (OSError, ApiError):
            return False
        return True

    def _json(
        self, method: str, path: str, body: bytes | None = None, content_type: str = _JSON
    ) -> dict[str, Any]:
        result: dict[str, Any] = json.loads(self._request(method, path, body, content_type))
        return result

    def _request(
        self, method: str, path: str, body: bytes | None = None, content_type: str = _JSON
    ) -> bytes:
        request = urllib.request.Request(self.server + path, data=body, method=method)
        request.add_header("Accept", _JSON)
        if body is not None:
            request.add_header("Content-Type", content_type)
        # As client-go does: a 429 (API Priority and Fairness, or a resource whose storage is
        # re-initialising after its CRD changed) is retried after its Retry-After, a few times.
        for attempt in range(_RETRIES_OF_429 + 1):
            try:
                with urllib.request.urlopen(
                    request, timeout=self._timeout, context=self._tls
                ) as reply:
                    data: bytes = reply.read()
                    return data
            except urllib.error.HTTPError as error:
                if error.code != 429 or attempt == _RETRIES_OF_429:
                    raise ApiError(error.code, error.read().decode(errors="replace")) from None
                time.sleep(min(float(error.headers.get("Retry-After") or 1), 5.0))
        raise AssertionError("unreachable")


def insecure_health_ok(url: str, *, timeout: float = 5.0) -> bool:
    """GET a component's /healthz, whose self-signed certificate nobody can verify anyway."""
    tls = ssl.create_default_context()
    tls.check_hostname = False
    tls.verify_mode = ssl.CERT_NONE
    try:
        with urllib.request.urlopen(url, timeout=timeout, context=tls) as reply:
            return bool(reply.status == 200)
    except OSError:
        return False
