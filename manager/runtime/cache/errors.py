"""Errors of the cache: one hierarchy, rooted at `CacheError`.

All of them are programming or start-up errors, raised at once instead of waiting or answering
"absent", which a reconciler would take for the truth:

- `KindNotCachedError`: a read of a kind (or, in a namespace-restricted cache, a namespace) that
  no informer covers. Watch it (`ControllerBuilder.for_/owns/watches`) or `Cache.register` it.
- `IndexNotFoundError`: `by_index` with an index nobody registered for the kind.
- `CacheNotSyncedError`: a read before the kind's first list completed. Controllers only start
  once the caches have synced, so a reconciler never sees it; a mapper may, during start-up.
- `CacheOptionsConflictError`: a kind registered twice with different selectors or indexers.

Apart from that hierarchy, `SelectorSyntaxError` (a `ValueError`) is a label selector that does
not parse.
"""

from __future__ import annotations

__all__ = [
    "CacheError",
    "CacheNotSyncedError",
    "CacheOptionsConflictError",
    "IndexNotFoundError",
    "KindNotCachedError",
    "SelectorSyntaxError",
]


class CacheError(Exception):
    """Root of every error raised by `manager.runtime.cache`."""


class KindNotCachedError(CacheError, LookupError):
    """No informer holds the kind (or the namespace) that was read."""


class IndexNotFoundError(CacheError, LookupError):
    """The kind has no index of that name."""


class CacheNotSyncedError(CacheError):
    """The kind's informer has not completed its first list yet."""


class CacheOptionsConflictError(CacheError, ValueError):
    """A kind was registered with options that differ from the ones it already has."""


class SelectorSyntaxError(ValueError):
    """The selector string is not valid label-selector syntax."""
