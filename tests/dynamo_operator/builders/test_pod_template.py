from __future__ import annotations

from typing import Any

import pytest

from dynamo_operator.builders.pod_template import build_pod_spec

from .factories import component, context, multinode_worker


def pod_security_context(**extra_pod_spec: Any) -> Any:
    return build_pod_spec(component(extraPodSpec=extra_pod_spec), context()).get("securityContext")


def test_pods_get_fs_group_1000_so_a_fresh_volume_is_writable_by_the_runtime_user() -> None:
    # upstream graph.go applyDefaultSecurityContext (PR #3935); graph_test.go and the DCD
    # controller's LeaderWorkerSet tests expect SecurityContext{FSGroup: 1000}
    assert pod_security_context() == {"fsGroup": 1000}


@pytest.mark.parametrize(
    "own", [{"runAsUser": 0}, {"fsGroup": 2000, "runAsNonRoot": True}, {}], ids=str
)
def test_a_security_context_of_the_users_own_is_kept_whole(own: dict[str, Any]) -> None:
    # upstream: "If user provides ANY securityContext (even partial), they get full control"
    assert pod_security_context(securityContext=own) == own


def test_both_roles_of_a_multinode_component_get_the_default() -> None:
    worker = multinode_worker("sglang")

    for role in ("leader", "worker"):
        assert build_pod_spec(worker, context(), role)["securityContext"] == {"fsGroup": 1000}
