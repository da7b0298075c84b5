"""Faults while graphs converge and users edit them: nothing is duplicated, orphaned or lost.

The CI-sized slice of `bench/chaos.py` (the same engine, `e2e.support.chaos`): 20 graphs in 4
namespaces (some multinode, some with a PVC, some serving the namespace's DynamoModel), the
operator SIGKILLed at 15 moments and restarted at once, its leader killed once while it runs as
a leader-elected pair, 2 API server restarts, an etcd compaction (the operator's watches get 410
and relist), the webhook down once with failurePolicy Fail and once with Ignore, and a handful of
each user edit meanwhile. Then the cluster must match the user's last word exactly, and the
operator must write nothing over a steady period. The seed is fixed (CHAOS_SEED replays
another); the test asserts counts, never durations.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from dynamo_operator.settings import OperatorSettings
from e2e.localcluster import ControlPlane
from e2e.support.chaos import ChaosPlan, ChaosTarget, run_chaos
from manager.runtime.client import RestClient

pytestmark = [pytest.mark.e2e, pytest.mark.anyio, pytest.mark.local_control_plane]

PLAN = ChaosPlan(
    graphs=20,
    namespaces=4,
    operator_kills=15,
    leader_kills=1,
    apiserver_restarts=2,
    etcd_compactions=1,
    webhook_outages=2,
    webhook_outage_seconds=5.0,
    edits={
        "env": 4,
        "replicas": 4,
        "service_removed": 2,
        "service_added": 2,
        "graph_recreated": 2,
        "namespace_deleted": 1,
    },
    window_seconds=30.0,
)
SEED = int(os.environ.get("CHAOS_SEED", "20251127"))
STEADY_SECONDS = 10.0
# The local control plane runs the LeaderWorkerSet controller: multinode graphs get LWS.
SETTINGS = OperatorSettings(available_apis=frozenset({"lws"}))


async def test_faults_while_converging_lose_nothing(
    api: Any, control_plane: ControlPlane, installed_crds: list[Any], tmp_path: Path
) -> None:
    target = ChaosTarget(
        RestClient.for_api(api), control_plane.kubeconfig, control_plane, tmp_path, SETTINGS
    )
    print(f"chaos seed={SEED}")
    report = await run_chaos(
        target, PLAN, SEED, reconverge_within=600.0, steady_seconds=STEADY_SECONDS
    )

    assert report.fleet.crashes == 0, report.fleet.crash_tails
    assert report.injected == PLAN.counts()
    findings = report.end.findings
    assert findings.duplicates == []
    assert findings.orphans == []
    assert findings.missing == []
    assert report.end.lost_updates == 0, report.end.summary()
    assert report.end.models_off == []
    assert report.end.pvcs_replaced == []
    assert report.end.pvcs > 0, "no graph with a PVC: the check proved nothing"
    assert report.reconverged
    assert report.relists_observed == PLAN.etcd_compactions, "no 410 relist after a compaction"
    assert report.steady_writes == 0
