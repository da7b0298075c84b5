"""Errors of the webhooks package.

``WebhookError`` is the root. Review errors describe a request we cannot validate: an
``UnanswerableReviewError`` becomes an HTTP 400 (there is no uid to answer), a
``MalformedReviewError`` becomes a denial that echoes its uid. A certificate or key that cannot be
used raises the runtime's ``manager.runtime.tls.CertificateError`` (the certificate sources keep
serving the previous pair); ``SecretOwnedElsewhereError``, one of them, stops the
operator-managed mode from taking over a Secret that cert-manager issues into.
"""

from __future__ import annotations

from manager.runtime.tls.errors import CertificateError

__all__ = [
    "BodyTimeoutError",
    "ClientGoneError",
    "MalformedReviewError",
    "SecretOwnedElsewhereError",
    "UnanswerableReviewError",
    "UnreadableBodyError",
    "WebhookError",
]


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


class SecretOwnedElsewhereError(CertificateError, WebhookError):
    """The operator-managed Secret is cert-manager's: replacing it would fight cert-manager."""


class UnreadableBodyError(UnanswerableReviewError):
    """The body could not be read to its end (too large, not decodable, not arriving): answered
    with ``Connection: close``, since what is left of it would be read as the next request."""

    status = 400


class BodyTimeoutError(UnreadableBodyError):
    """The declared body did not arrive in time."""

    status = 408


class ClientGoneError(UnreadableBodyError):
    """The client closed or reset the connection before its body's end: nobody reads the answer
    (a 400, counted and logged as any unreadable body)."""
