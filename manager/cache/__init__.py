"""The informer cache: reflectors (list + watch) feeding indexed stores of plain dicts."""

from manager.cache.cache import Cache
from manager.cache.informer import EventHandler, Informer, strip_for_cache
from manager.cache.reflector import Reflector, ReflectorSink
from manager.cache.selector import LabelSelector, SelectorSyntaxError
from manager.cache.store import (
    LABEL_INDEX,
    NAMESPACE_INDEX,
    OWNER_UID_INDEX,
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
    "EventHandler",
    "Informer",
    "LabelSelector",
    "ObjectKey",
    "Reflector",
    "ReflectorSink",
    "SelectorSyntaxError",
    "Store",
    "StoreDelta",
    "object_key",
    "strip_for_cache",
]
