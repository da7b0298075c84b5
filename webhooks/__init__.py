"""The validating admission webhook server for the Dynamo resources.

The public names are imported on first use (`manager.runtime.lazy`): `dynamo-operator
webhook-server` needs the standalone server, not the operator-managed certificates and their
Kubernetes client.
"""

from typing import TYPE_CHECKING as _TYPE_CHECKING

from manager.runtime.lazy import lazy_exports as _lazy_exports

if _TYPE_CHECKING:
    from webhooks.admission import MAX_BODY_BYTES
    from webhooks.app import build_app
    from webhooks.certificates.operator_managed import OperatorManagedCertificates
    from webhooks.certificates.rotation import CertificatePolicy
    from webhooks.crd_conversion import (
        ConversionTarget,
        CrdConversionKeeper,
        conversion_patch,
        convertible_crd_names,
    )
    from webhooks.endpoints import DEFAULT_PORT, ENDPOINTS, WebhookEndpoint
    from webhooks.errors import SecretOwnedElsewhereError, WebhookError
    from webhooks.handlers import ResourceValidator
    from webhooks.manifests import (
        OPERATOR_NAMESPACE_LABEL,
        VALIDATING_WEBHOOK_CONFIGURATION,
        ServiceTarget,
        UrlTarget,
        build_validating_webhook_configuration,
    )
    from webhooks.replica_writers import PLANNERS_ONLY, ReplicaWriters
    from webhooks.server import CertificateSource, WebhookServer
    from webhooks.standalone import CertMode, serve_standalone

__all__ = [
    "DEFAULT_PORT",
    "ENDPOINTS",
    "MAX_BODY_BYTES",
    "OPERATOR_NAMESPACE_LABEL",
    "PLANNERS_ONLY",
    "VALIDATING_WEBHOOK_CONFIGURATION",
    "CertMode",
    "CertificatePolicy",
    "CertificateSource",
    "ConversionTarget",
    "CrdConversionKeeper",
    "OperatorManagedCertificates",
    "ReplicaWriters",
    "ResourceValidator",
    "SecretOwnedElsewhereError",
    "ServiceTarget",
    "UrlTarget",
    "WebhookEndpoint",
    "WebhookError",
    "WebhookServer",
    "build_app",
    "build_validating_webhook_configuration",
    "conversion_patch",
    "convertible_crd_names",
    "serve_standalone",
]

__getattr__, __dir__ = _lazy_exports(__name__)
