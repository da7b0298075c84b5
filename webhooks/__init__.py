"""The validating admission webhook server for the Dynamo resources."""

from webhooks.app import build_app
from webhooks.certificates.directory import DirectoryCertificates
from webhooks.certificates.operator_managed import OperatorManagedCertificates
from webhooks.certificates.rotation import CertificatePolicy
from webhooks.endpoints import DEFAULT_PORT, ENDPOINTS, WebhookEndpoint
from webhooks.handlers import ResourceValidator
from webhooks.manifests import ServiceTarget, UrlTarget, build_validating_webhook_configuration
from webhooks.server import CertificateSource, WebhookServer

__all__ = [
    "DEFAULT_PORT",
    "ENDPOINTS",
    "CertificatePolicy",
    "CertificateSource",
    "DirectoryCertificates",
    "OperatorManagedCertificates",
    "ResourceValidator",
    "ServiceTarget",
    "UrlTarget",
    "WebhookEndpoint",
    "WebhookServer",
    "build_app",
    "build_validating_webhook_configuration",
]
