"""The webhook server's own certificates: the operator-managed CA and serving pair in a Secret
(with rotation and caBundle injection), and self-signed files for standalone runs. Loading,
hot reload, key pairs and certificate directories are the runtime's (`manager.runtime.tls`),
shared with the metrics endpoint."""

from webhooks.certificates.operator_managed import (
    FIELD_MANAGER,
    SECRET_NAME,
    OperatorManagedCertificates,
)
from webhooks.certificates.rotation import (
    CertificatePolicy,
    ManagedCertificates,
    plan_certificates,
)
from webhooks.certificates.self_signed import SelfSignedCertificates

__all__ = [
    "FIELD_MANAGER",
    "SECRET_NAME",
    "CertificatePolicy",
    "ManagedCertificates",
    "OperatorManagedCertificates",
    "SelfSignedCertificates",
    "plan_certificates",
]
