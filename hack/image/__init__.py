"""Building the operator image without Docker: the cache key of its inputs (``context_key``)."""

__all__ = ["context_key"]
