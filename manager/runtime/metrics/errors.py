"""Errors of the metrics package: ``ReviewError``, a TokenReview or SubjectAccessReview got no
answer the secure endpoint can act on.
"""

from __future__ import annotations

__all__ = ["ReviewError"]


class ReviewError(Exception):
    """The API server gave no review answer; the request is answered 500, nothing is cached."""
