"""The ``spec.conversion`` stanza of a CRD served at several versions.

The API server converts an object between versions by POSTing a ConversionReview to the
operator's webhook Service at ``/convert``. The committed CRDs name the default Service
(``dynamo-operator-webhook-service`` in ``dynamo-system``, port 443) without a CA; whoever
installs them elsewhere (the chart, the operator at start-up) builds the stanza with its own
Service and the CA that signed the webhook's serving certificate.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

CONVERSION_PATH = "/convert"
DEFAULT_SERVICE_NAMESPACE = "dynamo-system"
DEFAULT_SERVICE_NAME = "dynamo-operator-webhook-service"
DEFAULT_SERVICE_PORT = 443
CONVERSION_REVIEW_VERSIONS = ("v1",)


@dataclass(frozen=True, slots=True)
class ConversionService:
    """The Service in front of the conversion webhook, and the CA the API server must trust."""

    namespace: str = DEFAULT_SERVICE_NAMESPACE
    name: str = DEFAULT_SERVICE_NAME
    port: int = DEFAULT_SERVICE_PORT
    ca_bundle_pem: bytes | None = None
    """PEM of the CA; absent until the operator injects it."""

    def client_config(self) -> dict[str, Any]:
        """``spec.conversion.webhook.clientConfig``."""
        config: dict[str, Any] = {
            "service": {
                "namespace": self.namespace,
                "name": self.name,
                "path": CONVERSION_PATH,
                "port": self.port,
            }
        }
        if self.ca_bundle_pem:
            config["caBundle"] = base64.b64encode(self.ca_bundle_pem).decode()
        return config

    def stanza(self) -> dict[str, Any]:
        """``spec.conversion``: Webhook strategy, ConversionReview v1, this Service."""
        return {
            "strategy": "Webhook",
            "webhook": {
                "conversionReviewVersions": list(CONVERSION_REVIEW_VERSIONS),
                "clientConfig": self.client_config(),
            },
        }


DEFAULT_CONVERSION_SERVICE = ConversionService()


def conversion_client_config(
    namespace: str = DEFAULT_SERVICE_NAMESPACE,
    name: str = DEFAULT_SERVICE_NAME,
    port: int = DEFAULT_SERVICE_PORT,
    ca_bundle_pem: bytes | None = None,
) -> dict[str, Any]:
    """``spec.conversion.webhook.clientConfig`` for the webhook Service ``name.namespace:port``."""
    return ConversionService(namespace, name, port, ca_bundle_pem).client_config()
