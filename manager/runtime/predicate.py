"""Predicates decide which informer events reach a controller's queue (controller-runtime's
`predicate` package, over plain dict objects).

A predicate answers for each kind of event; `True` lets it through. The change predicates look
only at updates (creates and deletes always pass): `GenerationChanged` ignores updates that
touch only metadata or status (for kinds that keep `metadata.generation`: CRDs and most
workloads, not ConfigMaps or Secrets), `LabelsChanged` and `AnnotationsChanged` let through
updates of those maps. `turned_true(test)` lets through the moment an object starts to pass
`test` (created passing it, or updated from failing it to passing it). `and_`, `or_` and `not_`
combine predicates event by event.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = [
    "AnnotationsChanged",
    "Funcs",
    "GenerationChanged",
    "LabelsChanged",
    "Predicate",
    "ResourceVersionChanged",
    "and_",
    "new_predicate_funcs",
    "not_",
    "or_",
    "turned_true",
]

Object = dict[str, Any]


class Predicate(Protocol):
    def create(self, obj: Object) -> bool: ...
    def update(self, old: Object, new: Object) -> bool: ...
    def delete(self, obj: Object) -> bool: ...


def _always(*_: Object) -> bool:
    return True


@dataclass(frozen=True)
class Funcs:
    """A predicate from functions; an event without a function passes."""

    on_create: Callable[[Object], bool] = _always
    on_update: Callable[[Object, Object], bool] = _always
    on_delete: Callable[[Object], bool] = _always

    def create(self, obj: Object) -> bool:
        return self.on_create(obj)

    def update(self, old: Object, new: Object) -> bool:
        return self.on_update(old, new)

    def delete(self, obj: Object) -> bool:
        return self.on_delete(obj)


def new_predicate_funcs(keep: Callable[[Object], bool]) -> Funcs:
    """Apply one filter to every event's object (the new object for updates)."""
    return Funcs(on_create=keep, on_update=lambda _old, new: keep(new), on_delete=keep)


def _metadata(obj: Object, field: str) -> Any:
    return (obj.get("metadata") or {}).get(field)


def _changed(field: str, *, empty: Any) -> Funcs:
    def update(old: Object, new: Object) -> bool:
        return bool((_metadata(old, field) or empty) != (_metadata(new, field) or empty))

    return Funcs(on_update=update)


def turned_true(test: Callable[[Object], bool]) -> Funcs:
    """Passes a create whose object passes `test` and an update from an object failing it to
    one passing it; never a delete."""
    return Funcs(
        on_create=test,
        on_update=lambda old, new: not test(old) and test(new),
        on_delete=lambda _obj: False,
    )


GenerationChanged = _changed("generation", empty=None)
LabelsChanged = _changed("labels", empty={})
AnnotationsChanged = _changed("annotations", empty={})
# Lets through every real change and filters out resync replays (same resourceVersion).
ResourceVersionChanged = _changed("resourceVersion", empty=None)


@dataclass(frozen=True)
class _All:
    predicates: tuple[Predicate, ...]

    def create(self, obj: Object) -> bool:
        return all(p.create(obj) for p in self.predicates)

    def update(self, old: Object, new: Object) -> bool:
        return all(p.update(old, new) for p in self.predicates)

    def delete(self, obj: Object) -> bool:
        return all(p.delete(obj) for p in self.predicates)


@dataclass(frozen=True)
class _Any:
    predicates: tuple[Predicate, ...]

    def create(self, obj: Object) -> bool:
        return any(p.create(obj) for p in self.predicates)

    def update(self, old: Object, new: Object) -> bool:
        return any(p.update(old, new) for p in self.predicates)

    def delete(self, obj: Object) -> bool:
        return any(p.delete(obj) for p in self.predicates)


@dataclass(frozen=True)
class _Not:
    predicate: Predicate

    def create(self, obj: Object) -> bool:
        return not self.predicate.create(obj)

    def update(self, old: Object, new: Object) -> bool:
        return not self.predicate.update(old, new)

    def delete(self, obj: Object) -> bool:
        return not self.predicate.delete(obj)


def and_(*predicates: Predicate) -> Predicate:
    """Passes an event only if every predicate passes it."""
    return _All(predicates)


def or_(*predicates: Predicate) -> Predicate:
    """Passes an event if any predicate passes it."""
    return _Any(predicates)


def not_(predicate: Predicate) -> Predicate:
    """Passes exactly the events `predicate` rejects."""
    return _Not(predicate)
