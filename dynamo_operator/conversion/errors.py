"""The conversion package's one error: ``ConversionError``, an object that cannot be converted.

The API server's ConversionReview hands the webhook arbitrary stored objects; anything the
conversion cannot handle must come back as this error, with the field path and the reason, never
as another exception (the webhook answers it as a failed review, naming the field).
"""

from __future__ import annotations

__all__ = ["ConversionError"]


class ConversionError(ValueError):
    """An object cannot be converted; ``path`` names the field ("" for the whole object)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}" if path else reason)
        self.path = path
        self.reason = reason
