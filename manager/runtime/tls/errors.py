"""Errors of the TLS package: one, ``CertificateError``, raised when a certificate, key or CA
bundle is unreadable, mismatched or expired. Whoever serves a pair keeps the previous one."""

from __future__ import annotations

__all__ = ["CertificateError"]


class CertificateError(Exception):
    """A certificate, key or CA bundle is unreadable, mismatched or expired."""
