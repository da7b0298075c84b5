"""The main container: merged from several v1alpha1 fields, split back as the hints say."""

from __future__ import annotations

from typing import Any

from dynamo_operator.conversion.main_container import (
    build_main,
    default_env_split,
    main_hints,
    split_main,
)


def _round_trip(service: dict[str, Any]) -> dict[str, Any]:
    main = build_main(service, [])
    assert main is not None
    fields, user, _ = split_main(main, main_hints(service, main, []))
    if user:
        fields["extraPodSpec"] = {"mainContainer": user}
    return fields


def test_env_is_main_container_env_then_envs_so_envs_win_at_runtime() -> None:
    service = {
        "envs": [{"name": "A", "value": "service"}],
        "extraPodSpec": {"mainContainer": {"env": [{"name": "A", "value": "main"}]}},
    }
    main = build_main(service, [])
    assert main is not None
    assert main["env"] == [{"name": "A", "value": "main"}, {"name": "A", "value": "service"}]
    assert _round_trip(service) == service


def test_env_splits_by_default_into_envs_except_a_duplicated_head() -> None:
    env = [{"name": "A", "value": "1"}, {"name": "B"}, {"name": "A", "value": "2"}]
    assert default_env_split(env) == 1
    fields, user, _ = split_main({"name": "main", "env": env}, {})
    assert user == {"env": env[:1]}
    assert fields == {"envs": env[1:]}


def test_env_from_secret_is_the_last_secret_ref_and_a_plain_one_stays_in_main() -> None:
    service = {
        "envFromSecret": "tok",
        "extraPodSpec": {"mainContainer": {"envFrom": [{"configMapRef": {"name": "c"}}]}},
    }
    main = build_main(service, [])
    assert main is not None
    assert main["envFrom"] == [{"configMapRef": {"name": "c"}}, {"secretRef": {"name": "tok"}}]
    assert _round_trip(service) == service
    own = {"extraPodSpec": {"mainContainer": {"envFrom": [{"secretRef": {"name": "tok"}}]}}}
    assert _round_trip(own) == own


def test_service_probes_win_and_main_container_probes_stay_there_on_the_way_back() -> None:
    probe = {"httpGet": {"path": "/live", "port": 9090}}
    main = build_main(
        {"livenessProbe": probe, "extraPodSpec": {"mainContainer": {"livenessProbe": {}}}}, []
    )
    assert main is not None
    assert main["livenessProbe"] == probe
    own = {"extraPodSpec": {"mainContainer": {"readinessProbe": probe}}}
    assert _round_trip(own) == own
    assert _round_trip({"readinessProbe": probe}) == {"readinessProbe": probe}


def test_pvc_mounts_come_first_and_are_recognised_by_name() -> None:
    pvc = [{"name": "models", "mountPath": "/models"}]
    service = {
        "extraPodSpec": {"mainContainer": {"volumeMounts": [{"name": "x", "mountPath": "/x"}]}}
    }
    main = build_main(service, pvc)
    assert main is not None
    assert main["volumeMounts"] == [*pvc, {"name": "x", "mountPath": "/x"}]
    _, user, mounts = split_main(main, main_hints(service, main, ["models"]))
    assert mounts == [{"name": "models", "mountPoint": "/models"}]
    assert user == {"volumeMounts": [{"name": "x", "mountPath": "/x"}]}
    _, user, mounts = split_main(main, {})
    assert mounts == []
    assert len(user["volumeMounts"]) == 2
