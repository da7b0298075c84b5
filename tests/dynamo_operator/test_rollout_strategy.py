"""The Deployment strategy a component's annotations ask for.

The cases of upstream's ``internal/controller/dynamocomponentdeployment_controller_test.go``
``Test_generateDeployment_Strategy`` (ai-dynamo/dynamo), each named after its upstream case.
"""

from __future__ import annotations

from typing import Any

import pytest

from dynamo_operator.rollout_strategy import (
    build_deployment_strategy,
    rollout_annotations,
    rollout_problems,
)

STRATEGY = "nvidia.com/deployment-strategy"
SURGE = "nvidia.com/deployment-rolling-update-max-surge"
UNAVAILABLE = "nvidia.com/deployment-rolling-update-max-unavailable"


def rolling(surge: Any, unavailable: Any) -> dict[str, Any]:
    return {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable},
    }


@pytest.mark.parametrize(
    ("annotations", "strategy"),
    [
        # "no annotations - default RollingUpdate with default maxSurge and maxUnavailable"
        ({}, rolling("25%", "25%")),
        # "deployment-strategy annotation with Recreate - strategy is Recreate"
        ({STRATEGY: "Recreate"}, {"type": "Recreate"}),
        # "deployment-strategy Recreate with maxSurge/maxUnavailable - ... are ignored"
        ({STRATEGY: "Recreate", SURGE: "50%", UNAVAILABLE: "30%"}, {"type": "Recreate"}),
        # "deployment-strategy RollingUpdate with only maxSurge"
        ({STRATEGY: "RollingUpdate", SURGE: "50%"}, rolling("50%", "25%")),
        # "deployment-strategy RollingUpdate with only maxUnavailable"
        ({STRATEGY: "RollingUpdate", UNAVAILABLE: "10%"}, rolling("25%", "10%")),
        # "deployment-strategy RollingUpdate with both maxSurge and maxUnavailable"
        ({STRATEGY: "RollingUpdate", SURGE: "40%", UNAVAILABLE: "20%"}, rolling("40%", "20%")),
        # "deployment-strategy RollingUpdate with integer maxSurge and maxUnavailable (not
        # percentages)": integers stay integers, as Kubernetes' intstr.Parse reads them
        ({STRATEGY: "RollingUpdate", SURGE: "1", UNAVAILABLE: "0"}, rolling(1, 0)),
        # the tuning annotations alone tune the default strategy
        ({SURGE: "1", UNAVAILABLE: "0"}, rolling(1, 0)),
        # upstream's earlier strategy names, as the presets they were
        ({STRATEGY: "RampedSlowRollout"}, rolling(1, 0)),
        ({STRATEGY: "BestEffortControlledRollout", SURGE: "5"}, rolling(0, "20%")),
    ],
)
def test_the_annotations_choose_the_deployment_strategy(
    annotations: dict[str, str], strategy: dict[str, Any]
) -> None:
    assert build_deployment_strategy(annotations) == strategy
    assert [p for p in rollout_problems(annotations) if not p.warning] == []


@pytest.mark.parametrize(
    ("annotations", "strategy"),
    [
        ({STRATEGY: "recreate"}, rolling("25%", "25%")),
        ({SURGE: "one", UNAVAILABLE: "150%"}, rolling("25%", "25%")),
        ({SURGE: "0", UNAVAILABLE: "0%"}, rolling(1, "0%")),
    ],
)
def test_a_value_the_deployment_cannot_take_never_breaks_the_build(
    annotations: dict[str, str], strategy: dict[str, Any]
) -> None:
    assert build_deployment_strategy(annotations) == strategy


@pytest.mark.parametrize(
    ("annotations", "problem"),
    [
        ({STRATEGY: "recreate"}, (STRATEGY, "'recreate' is not a rollout strategy: use Rolling")),
        ({SURGE: "one"}, (SURGE, "'one' is neither a whole number of pods nor a percentage")),
        ({SURGE: "1.5"}, (SURGE, "'1.5' is neither a whole number")),
        ({SURGE: "-1"}, (SURGE, "'-1' is neither a whole number")),
        ({UNAVAILABLE: "150%"}, (UNAVAILABLE, "'150%' is more than 100% of the pods")),
        ({SURGE: "4294967296"}, (SURGE, "'4294967296' is more than 2147483647 pods")),
        ({SURGE: "0", UNAVAILABLE: "0%"}, (UNAVAILABLE, "maxSurge and maxUnavailable are both 0")),
        ({SURGE: "0", STRATEGY: "RollingUpdate"}, None),
    ],
)
def test_problems_name_the_annotation_and_why(
    annotations: dict[str, str], problem: tuple[str, str] | None
) -> None:
    problems = rollout_problems(annotations)

    if problem is None:
        assert problems == []
        return
    [found] = problems
    assert (found.annotation, found.warning) == (problem[0], False)
    assert found.message.startswith(problem[1])


def test_tuning_a_strategy_that_does_not_roll_is_only_a_warning() -> None:
    problems = rollout_problems({STRATEGY: "Recreate", SURGE: "nonsense"})

    assert [(p.annotation, p.message, p.warning) for p in problems] == [
        (SURGE, "ignored: the strategy is Recreate", True)
    ]


def test_pod_annotations_win_and_empty_values_count_as_absent() -> None:
    merged = rollout_annotations(
        {STRATEGY: "Recreate", SURGE: "50%", "other": "x"}, {STRATEGY: "", SURGE: "1"}
    )

    assert merged == {SURGE: "1"}
