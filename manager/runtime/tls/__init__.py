"""TLS serving certificates, for every HTTPS listener of the process (the metrics endpoint and
the webhook server): a server context whose pair is replaced while it serves, key pairs (a CA
and the certificates it signs, or one self-signed certificate), and a certificate
directory polled for changes (a mounted Secret)."""

from manager.runtime.tls.directory import (
    DEFAULT_POLL_INTERVAL,
    TLS_CERT_KEY,
    TLS_KEY_KEY,
    DirectoryCertificates,
    read_pair,
)
from manager.runtime.tls.errors import CertificateError
from manager.runtime.tls.key_pair import (
    LOCAL_DNS_NAMES,
    LOCAL_IP_ADDRESSES,
    KeyPair,
    PrivateKey,
    generate_ca,
    generate_client_pair,
    generate_self_signed,
    generate_serving_pair,
    serving_dns_names,
    subject_alternative_names,
)
from manager.runtime.tls.server_context import ReloadableServerTLS

__all__ = [
    "DEFAULT_POLL_INTERVAL",
    "LOCAL_DNS_NAMES",
    "LOCAL_IP_ADDRESSES",
    "TLS_CERT_KEY",
    "TLS_KEY_KEY",
    "CertificateError",
    "DirectoryCertificates",
    "KeyPair",
    "PrivateKey",
    "ReloadableServerTLS",
    "generate_ca",
    "generate_client_pair",
    "generate_self_signed",
    "generate_serving_pair",
    "read_pair",
    "serving_dns_names",
    "subject_alternative_names",
]
