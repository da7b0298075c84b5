"""The informer cache: reflectors (list + watch) feeding indexed stores of plain dicts, one
informer per kind, read synchronously through `CacheReader`; and the jittered exponential
`Backoff` the reflectors retry with, which other watch loops reuse."""

from manager.cache.backoff import Backoff
from manager.cache.cache import Cache, KindOptions
from manager.cache.errors import (
    CacheError,
    CacheNotSyncedError,
    CacheOptionsConflictError,
    IndexNotFoundError,
    KindNotCachedError,
)
from manager.cache.informer import EventHandler, Informer, strip_for_cache
from manager.cache.reader import CacheReader, Labels
from manager.cache.reflector import Reflector, ReflectorSink
from manager.cache.selector import LabelSelector, SelectorSyntaxError
from manager.cache.store import (
    LABEL_INDEX,
    NAMESPACE_INDEX,
    OWNER_UID_INDEX,
    IndexFunc,
    ObjectKey,
    Store,
    StoreDelta,
    object_key,
)

__all__ = [
    "LABEL_INDEX",
    "NAMESPACE_INDEX",
    "OWNER_UID_INDEX",
    "Backoff",
    "Cache",
    "CacheError",
    "CacheNotSyncedError",
    "CacheOptionsConflictError",
    "CacheReader",
    "EventHandler",
    "IndexFunc",
    "IndexNotFoundError",
    "Informer",
    "KindNotCachedError",
    "KindOptions",
    "LabelSelector",
    "Labels",
    "ObjectKey",
    "Reflector",
    "ReflectorSink",
    "SelectorSyntaxError",
    "Store",
    "StoreDelta",
    "object_key",
    "strip_for_cache",
]
