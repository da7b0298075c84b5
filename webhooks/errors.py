"""Errors of the webhooks package.

``WebhookError`` is the root. Review errors describe a request we cannot validate: an
``UnanswerableReviewError`` becomes an HTTP 400 (there is no uid to answer), a
``MalformedReviewError`` becomes a denial that echoes its uid. ``CertificateError`` means a
certificate or key could not be used; the certificate sources keep serving the previous pair.
``SecretOwnedElsewhereError`` stops the operator-managed mode from taking over a Secret that
cert-manager issues into.
"""

from __future__ import annotations


class WebhookError(Exception):
    """Root of the webhooks package's errors."""


class UnanswerableReviewError(WebhookError):
    """The body is not an AdmissionReview v1 we can answer (no JSON, wrong version, no uid...)."""


class MalformedReviewError(WebhookError):
    """The review has a uid, but its request is malformed; answered with a denial, except for a
    DELETE (or CONNECT), which is always allowed whatever else the request carries."""

    def __init__(self, message: str, *, uid: str, operation: object = None) -> None:
        super().__init__(message)
        self.uid = uid
        self.operation = operation
        """The request's ``operation`` as sent, whatever its type."""


class CertificateError(WebhookError):
    """A certificate, key or CA bundle is unreadable, mismatched or expired."""


class SecretOwnedElsewhereError(CertificateError):
    """The operator-managed Secret is cert-manager's: replacing it would fight cert-manager."""
