"""A status just written is known by its digest until the cache catches up."""

from __future__ import annotations

from typing import Any

from manager.runtime.client.written import WrittenStatuses, status_digest


def _obj(version: str, status: dict[str, Any], uid: str = "u1") -> dict[str, Any]:
    return {"metadata": {"uid": uid, "resourceVersion": version}, "status": status}


def test_nothing_was_written_since_when_nothing_was_written() -> None:
    assert WrittenStatuses().written_since(_obj("5", {"a": 1})) is None


def test_a_written_status_is_known_until_the_cache_catches_up() -> None:
    written = WrittenStatuses()
    written.remember(_obj("7", {"a": 2}), {"a": 2})
    assert written.written_since(_obj("5", {"a": 1})) == status_digest({"a": 2})
    assert written.written_since(_obj("7", {"a": 2})) is None
    assert written.written_since(_obj("5", {"a": 1})) is None  # forgotten once caught up


def test_a_later_change_by_someone_else_is_the_cache_having_caught_up() -> None:
    written = WrittenStatuses()
    written.remember(_obj("7", {"a": 2}), {"a": 2})
    assert written.written_since(_obj("9", {"a": 3})) is None


def test_other_objects_and_unparsable_versions_are_unaffected() -> None:
    written = WrittenStatuses()
    written.remember(_obj("7", {"a": 2}), {"a": 2})
    assert written.written_since(_obj("5", {"b": 1}, uid="u2")) is None
    written.remember(_obj("opaque", {"c": 1}, uid="u3"), {"c": 1})
    assert written.written_since(_obj("1", {"c": 0}, uid="u3")) is None


def test_the_digest_is_of_the_content_not_the_key_order() -> None:
    assert status_digest({"a": 1, "b": [1, 2]}) == status_digest({"b": [1, 2], "a": 1})
    assert status_digest({"a": 1}) != status_digest({"a": 2})


def test_the_digest_leaves_out_transition_times() -> None:
    """A pass behind its own write stamps the same verdict a second later: not a new status."""
    ready = {"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-28T00:52:37Z"}
    later = {**ready, "lastTransitionTime": "2026-11-28T00:52:38Z"}
    assert status_digest({"conditions": [ready]}) == status_digest({"conditions": [later]})
    assert status_digest({"conditions": [ready]}) != status_digest(
        {"conditions": [{**later, "status": "False"}]}
    )
