"""The JSON patch that hands a POST's fields to the apply manager, applied here by a minimal RFC
6902 interpreter (test, replace, remove on `/metadata/managedFields/...`); the real API server
applies it in e2e/runtime/test_client_apply.py."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from manager.runtime.client.created import adoption_patch

CREATOR, APPLIER = "acme-create", "acme"


class GuardFailed(Exception):
    pass


def patched(entries: list[dict[str, Any]], ops: list[dict[str, Any]]) -> list[dict[str, Any]]:
    doc: dict[str, Any] = {"metadata": {"managedFields": copy.deepcopy(entries)}}
    for op in ops:
        *parents, last = op["path"].strip("/").split("/")
        target: Any = doc
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        key: Any = int(last) if isinstance(target, list) else last
        if op["op"] == "test":
            if target[key] != op["value"]:
                raise GuardFailed(op["path"])
        elif op["op"] == "replace":
            target[key] = op["value"]
        elif op["op"] == "remove":
            del target[key]
    result: list[dict[str, Any]] = doc["metadata"]["managedFields"]
    return result


def entry(manager: str, operation: str, **extra: Any) -> dict[str, Any]:
    """An entry as the cache keeps it: who, not which fields."""
    return {"manager": manager, "operation": operation, **extra}


STATUS = entry("kube-controller-manager", "Update", subresource="status")
REVISION = entry("kube-controller-manager", "Update")


def adopted(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return patched(entries, adoption_patch(entries, creator=CREATOR, applier=APPLIER) or [])


def test_an_object_the_creator_never_wrote_needs_nothing() -> None:
    entries = [entry(APPLIER, "Apply"), STATUS]
    assert adoption_patch(entries, creator=CREATOR, applier=APPLIER) is None
    # A status the creator wrote is not the POST's.
    status_write = entry(CREATOR, "Update", subresource="status")
    assert adoption_patch([status_write], creator=CREATOR, applier=APPLIER) is None


def test_the_created_entry_becomes_the_appliers() -> None:
    entries = [REVISION, entry(CREATOR, "Update", time="t", fieldsV1={"f:spec": {}}), STATUS]

    assert adopted(entries) == [
        REVISION,
        entry(APPLIER, "Apply", time="t", fieldsV1={"f:spec": {}}),
        STATUS,
    ]


def test_beside_an_apply_of_its_own_the_created_entry_goes() -> None:
    entries = [entry(APPLIER, "Apply"), entry(CREATOR, "Update"), STATUS]

    assert adopted(entries) == [entry(APPLIER, "Apply"), STATUS]


@pytest.mark.parametrize("applied_already", [False, True])
def test_entries_that_moved_since_the_cache_read_fail_the_patch(applied_already: bool) -> None:
    entries = [entry(APPLIER, "Apply")] if applied_already else []
    entries += [entry(CREATOR, "Update"), STATUS]
    ops = adoption_patch(entries, creator=CREATOR, applier=APPLIER) or []
    moved = [REVISION, *entries]  # another manager's entry sorted in before it

    with pytest.raises(GuardFailed):
        patched(moved, ops)
