from __future__ import annotations

from e2e.support.chaos.plan import PAIR_PHASE, ChaosPlan, build_schedule, describe

PLAN = ChaosPlan(graphs=20, namespaces=4, operator_kills=15, leader_kills=2, window_seconds=40.0)


def test_the_same_seed_gives_the_same_schedule_and_another_seed_another() -> None:
    assert build_schedule(PLAN, 7) == build_schedule(PLAN, 7)
    assert build_schedule(PLAN, 7) != build_schedule(PLAN, 8)


def test_the_schedule_holds_every_fault_and_edit_of_the_plan_in_time_order() -> None:
    steps = build_schedule(PLAN, 1)
    counts = describe(steps)
    for kind, count in PLAN.counts().items():
        assert counts.get(kind, 0) == count, kind
    assert counts["pair_start"] == counts["pair_end"] == 1
    assert [step.at for step in steps] == sorted(step.at for step in steps)
    assert all(0 <= step.at <= PLAN.window_seconds for step in steps)


def test_only_the_leader_is_killed_while_the_pair_runs() -> None:
    start, end = (PLAN.window_seconds * fraction for fraction in PAIR_PHASE)
    for seed in range(20):
        for step in build_schedule(PLAN, seed):
            if step.action == "leader_kill":
                assert start < step.at < end
            if step.action == "operator_kill":
                assert not start <= step.at < end


def test_edit_targets_are_graphs_and_namespace_deletions_target_namespaces() -> None:
    steps = build_schedule(PLAN, 3)
    for step in steps:
        if step.action == "namespace_deleted":
            assert 0 <= step.target < PLAN.namespaces
        elif step.action in PLAN.edits:
            assert 0 <= step.target < PLAN.graphs


def test_webhook_outages_alternate_fail_and_ignore() -> None:
    counts = describe(build_schedule(ChaosPlan(webhook_outages=3), 0))
    assert (counts["webhook_outage_fail"], counts["webhook_outage_ignore"]) == (2, 1)
