from __future__ import annotations

from e2e.localcluster.controlplane.audit import verbs_needed


def test_a_server_side_apply_that_created_its_object_needed_create_too() -> None:
    assert verbs_needed("patch", 201) == ["patch", "create"]


def test_other_requests_needed_their_own_verb_only() -> None:
    assert verbs_needed("patch", 200) == ["patch"]
    assert verbs_needed("create", 201) == ["create"]
    assert verbs_needed("watch", 200) == ["watch"]
