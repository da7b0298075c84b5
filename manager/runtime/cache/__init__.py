"""The informer cache: reflectors (list + watch) feeding indexed stores of plain dicts, one
informer per kind, read synchronously through `CacheReader`."""

from manager.runtime.cache.cache import Cache, KindOptions
from manager.runtime.cache.errors import (
    CacheError,
    CacheNotSyncedError,
    CacheOptionsConflictError,
    IndexNotFoundError,
    KindNotCachedError,
    SelectorSyntaxError,
)
from manager.runtime.cache.informer import EventHandler, Informer, InformerList, strip_for_cache
from manager.runtime.cache.reader import CacheReader, Informers, Labels
from manager.runtime.cache.reflector import Reflector, ReflectorSink
from manager.runtime.cache.selector import (
    LabelSelector,
)
from manager.runtime.cache.store import (
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
    "Cache",
    "CacheError",
    "CacheNotSyncedError",
    "CacheOptionsConflictError",
    "CacheReader",
    "EventHandler",
    "IndexFunc",
    "IndexNotFoundError",
    "Informer",
    "InformerList",
    "Informers",
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
