"""Serving certificates for the webhook server: generation, rotation, hot reload, sources."""

from webhooks.certificates.directory import DirectoryCertificates
from webhooks.certificates.generation import (
    LOCAL_IP_ADDRESSES,
    KeyPair,
    generate_ca,
    generate_serving_pair,
)
from webhooks.certificates.operator_managed import (
    FIELD_MANAGER,
    SECRET_NAME,
    OperatorManagedCertificates,
)
from webhooks.certificates.rotation import CertificatePolicy, ManagedCertificates
from webhooks.certificates.self_signed import SelfSignedCertificates
from webhooks.certificates.tls import ReloadableServerTLS

__all__ = [
    "FIELD_MANAGER",
    "LOCAL_IP_ADDRESSES",
    "SECRET_NAME",
    "CertificatePolicy",
    "DirectoryCertificates",
    "KeyPair",
    "ManagedCertificates",
    "OperatorManagedCertificates",
    "ReloadableServerTLS",
    "SelfSignedCertificates",
    "generate_ca",
    "generate_serving_pair",
]
