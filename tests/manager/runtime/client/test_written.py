"""A status just written wins over the stale cached one until the cache catches up."""

from __future__ import annotations

from typing import Any

from manager.runtime.client.written import WrittenStatuses


def _obj(version: str, status: dict[str, Any], uid: str = "u1") -> dict[str, Any]:
    return {"metadata": {"uid": uid, "resourceVersion": version}, "status": status}


def test_the_cached_status_is_used_when_nothing_was_written() -> None:
    assert WrittenStatuses().freshest(_obj("5", {"a": 1})) == {"a": 1}


def test_a_written_status_replaces_the_stale_cached_one_until_the_cache_catches_up() -> None:
    written = WrittenStatuses()
    written.remember(_obj("7", {"a": 2}))
    assert written.freshest(_obj("5", {"a": 1})) == {"a": 2}  # cache still before the write
    assert written.freshest(_obj("7", {"a": 2})) == {"a": 2}
    assert written.freshest(_obj("5", {"a": 1})) == {"a": 1}  # forgotten once caught up


def test_a_later_change_by_someone_else_wins_over_the_written_status() -> None:
    written = WrittenStatuses()
    written.remember(_obj("7", {"a": 2}))
    assert written.freshest(_obj("9", {"a": 3})) == {"a": 3}


def test_other_objects_and_unparsable_versions_are_unaffected() -> None:
    written = WrittenStatuses()
    written.remember(_obj("7", {"a": 2}))
    assert written.freshest(_obj("5", {"b": 1}, uid="u2")) == {"b": 1}
    written.remember(_obj("opaque", {"c": 1}, uid="u3"))
    assert written.freshest(_obj("1", {"c": 0}, uid="u3")) == {"c": 0}
