"""The rollout strategy of a component's Deployment, as its annotations ask for it.

Upstream's contract (``dynamocomponentdeployment_controller.go``, its test
``Test_generateDeployment_Strategy``): ``nvidia.com/deployment-strategy`` is ``RollingUpdate``
(the default) or ``Recreate``, and a rolling update takes
``nvidia.com/deployment-rolling-update-max-surge`` and ``-max-unavailable`` (25% each by default;
a whole number such as ``1`` or a percentage such as ``50%``, as Kubernetes reads them).
They are read from the service's ``annotations`` with ``extraPodMetadata.annotations`` over them;
an empty value counts as absent; ``Recreate`` ignores the other two (a warning says so). The
strategy names of upstream's earlier releases are kept as the presets they were:
``RampedSlowRollout`` (one pod more at a time, none unavailable) and
``BestEffortControlledRollout`` (no surge, 20% unavailable).

Upstream renders whatever it is given, and a value Kubernetes refuses surfaces only as a
Deployment write that keeps failing. Here ``rollout_problems`` tells the user at admission, and
``build_deployment_strategy`` never fails: a value it cannot use is replaced by the default.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from dynamo_operator.constants import Annotations

__all__ = [
    "ROLLOUT_ANNOTATIONS",
    "RolloutProblem",
    "build_deployment_strategy",
    "rollout_annotations",
    "rollout_problems",
]

RECREATE: Final = "Recreate"
ROLLING_UPDATE: Final = "RollingUpdate"
DEFAULT_MAX_SURGE: Final = "25%"
DEFAULT_MAX_UNAVAILABLE: Final = "25%"
_PRESETS: Final[Mapping[str, tuple[int | str, int | str]]] = {
    "RampedSlowRollout": (1, 0),
    "BestEffortControlledRollout": (0, "20%"),
}
_STRATEGIES: Final = (ROLLING_UPDATE, RECREATE, *_PRESETS)
ROLLOUT_ANNOTATIONS: Final = (
    Annotations.DEPLOYMENT_STRATEGY,
    Annotations.ROLLING_UPDATE_MAX_SURGE,
    Annotations.ROLLING_UPDATE_MAX_UNAVAILABLE,
)
_INTEGER = re.compile(r"^[0-9]+$")
_PERCENT = re.compile(r"^([0-9]+)%$")
_INT32_MAX: Final = 2**31 - 1

IntOrPercent = int | str


@dataclass(frozen=True, slots=True)
class RolloutProblem:
    """Why the value of ``annotation`` cannot be used; a warning when it is merely ignored."""

    annotation: str
    message: str
    warning: bool = False


def rollout_annotations(
    annotations: Mapping[str, str] | None, pod_annotations: Mapping[str, str] | None
) -> dict[str, str]:
    """The three rollout annotations that have a value, the pod's over the service's."""
    merged = {**(annotations or {}), **(pod_annotations or {})}
    return {key: str(merged[key]) for key in ROLLOUT_ANNOTATIONS if merged.get(key)}


def build_deployment_strategy(annotations: Mapping[str, str]) -> dict[str, Any]:
    """The Deployment's ``strategy``; ``annotations`` as ``rollout_annotations`` returns them."""
    name = annotations.get(Annotations.DEPLOYMENT_STRATEGY, ROLLING_UPDATE)
    if name == RECREATE:
        return {"type": RECREATE}
    surge, unavailable = _PRESETS.get(name) or _rolling_update_values(annotations)
    return {
        "type": ROLLING_UPDATE,
        "rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable},
    }


def rollout_problems(annotations: Mapping[str, str]) -> list[RolloutProblem]:
    """What is wrong with the rollout annotations, in the order of ``ROLLOUT_ANNOTATIONS``."""
    name = annotations.get(Annotations.DEPLOYMENT_STRATEGY, ROLLING_UPDATE)
    problems: list[RolloutProblem] = []
    if name not in _STRATEGIES:
        problems.append(
            RolloutProblem(
                Annotations.DEPLOYMENT_STRATEGY,
                f"'{name}' is not a rollout strategy: use {', '.join(_STRATEGIES)}",
            )
        )
    tuned = [key for key in ROLLOUT_ANNOTATIONS[1:] if key in annotations]
    if name in (RECREATE, *_PRESETS):
        problems.extend(
            RolloutProblem(key, f"ignored: the strategy is {name}", warning=True) for key in tuned
        )
        return problems
    for key in tuned:
        problem = _int_or_percent_problem(key, annotations[key])
        if problem is not None:
            problems.append(RolloutProblem(key, problem))
    if tuned and not problems and all(_zero(value) for value in _tuned_values(annotations)):
        problems.append(
            RolloutProblem(
                tuned[-1],
                "maxSurge and maxUnavailable are both 0: the rollout could never replace a pod "
                "(Kubernetes refuses such a Deployment)",
            )
        )
    return problems


def _rolling_update_values(annotations: Mapping[str, str]) -> tuple[IntOrPercent, IntOrPercent]:
    surge, unavailable = _tuned_values(annotations)
    if _zero(surge) and _zero(unavailable):
        return 1, unavailable  # progress guaranteed, as in upstream's own worker rollouts
    return surge, unavailable


def _tuned_values(annotations: Mapping[str, str]) -> tuple[IntOrPercent, IntOrPercent]:
    """maxSurge and maxUnavailable: the annotations' when usable, else the defaults."""
    return (
        _usable(annotations, Annotations.ROLLING_UPDATE_MAX_SURGE, DEFAULT_MAX_SURGE),
        _usable(annotations, Annotations.ROLLING_UPDATE_MAX_UNAVAILABLE, DEFAULT_MAX_UNAVAILABLE),
    )


def _usable(annotations: Mapping[str, str], key: str, default: str) -> IntOrPercent:
    text = annotations.get(key)
    if text is None or _int_or_percent_problem(key, text) is not None:
        return default
    return int(text) if _INTEGER.match(text) else text  # Kubernetes' intstr.Parse


def _int_or_percent_problem(key: str, text: str) -> str | None:
    percent = _PERCENT.match(text)
    if not percent and not _INTEGER.match(text):
        return f"'{text}' is neither a whole number of pods nor a percentage (e.g. 1 or 25%)"
    if percent and key == Annotations.ROLLING_UPDATE_MAX_UNAVAILABLE and int(percent[1]) > 100:
        return f"'{text}' is more than 100% of the pods"
    if not percent and int(text) > _INT32_MAX:
        return f"'{text}' is more than {_INT32_MAX} pods"
    return None


def _zero(value: IntOrPercent) -> bool:
    """``value`` is usable: an integer, or digits and ``%``."""
    return int(str(value).rstrip("%")) == 0
