"""Status conversion: the same observations under v1beta1's names.

DynamoGraphDeployment: ``services`` <-> ``components`` (same entries) and, in ``rollingUpdate``,
``updatedServices`` <-> ``updatedComponents``. DynamoComponentDeployment: ``service`` <->
``component``. Every other field is copied as it is. A field already holding the target name (an
object that is not valid at its version) is left out here and restored by the residue.
"""

from __future__ import annotations

from typing import Any

from dynamo_operator.conversion.wire import JsonDict, copy_json


def graph_status_to_beta(status: Any) -> Any:
    return _graph_status(
        status, ("services", "components"), ("updatedServices", "updatedComponents")
    )


def graph_status_to_alpha(status: Any) -> Any:
    return _graph_status(
        status, ("components", "services"), ("updatedComponents", "updatedServices")
    )


def component_status_to_beta(status: Any) -> Any:
    return _renamed(status, "service", "component")


def component_status_to_alpha(status: Any) -> Any:
    return _renamed(status, "component", "service")


def _graph_status(status: Any, field: tuple[str, str], updated: tuple[str, str]) -> Any:
    converted = _renamed(status, *field)
    if isinstance(converted, dict) and "rollingUpdate" in converted:
        converted["rollingUpdate"] = _renamed(converted["rollingUpdate"], *updated)
    return converted


def _renamed(value: Any, old: str, new: str) -> Any:
    if not isinstance(value, dict):
        return copy_json(value)
    renamed: JsonDict = {}
    for key, item in value.items():
        if key == old:
            renamed[new] = copy_json(item)
        elif key != new:
            renamed[key] = copy_json(item)
    return renamed
