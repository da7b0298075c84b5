"""The validating admission webhook server for the Dynamo resources."""

from webhooks.app import build_app
from webhooks.certificates.directory import DirectoryCertificates
from webhooks.certificates.operator_managed import OperatorManagedCertificates
from webhooks.certificates.rotation import CertificatePolicy
from webhooks.endpoints import DEFAULT_PORT, ENDPOINTS, WebhookEndpoint
from webhooks.errors import CertificateError, WebhookError
from webhooks.handlers import ResourceValidator
from webhooks.manifests import (
    OPERATOR_NAMESPACE_LABEL,
    VALIDATING_WEBHOOK_CONFIGURATION,
    ServiceTarget,
    UrlTarget,
    build_validating_webhook_configuration,
)
from webhooks.server import CertificateSource, WebhookServer
from webhooks.standalone import CertMode, serve_standalone

__all__ = [
    "DEFAULT_PORT",
    "ENDPOINTS",
    "OPERATOR_NAMESPACE_LABEL",
    "VALIDATING_WEBHOOK_CONFIGURATION",
    "CertMode",
    "CertificateError",
    "CertificatePolicy",
    "CertificateSource",
    "DirectoryCertificates",
    "OperatorManagedCertificates",
    "ResourceValidator",
    "ServiceTarget",
    "UrlTarget",
    "WebhookEndpoint",
    "WebhookError",
    "WebhookServer",
    "build_app",
    "build_validating_webhook_configuration",
    "serve_standalone",
]
