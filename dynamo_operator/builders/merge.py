"""Override and merge rules shared by the builders.

Kubernetes JSON is plain dicts and lists. Three rules cover every user override:
- ``deep_merge``: maps merge key by key, the override wins, lists are replaced (a user's ``args``
  replaces ours, it is never appended to);
- ``merge_named``: lists keyed by ``name`` (env, ports, volumes) merge entry by entry, the later
  layer wins on a clash;
- ``merge_env``: ``merge_named`` sorted by name, so the env of a pod template does not depend on
  the order of the layers or of the user's list.
Every helper returns fresh containers and copies what it takes from its inputs, so an output never
aliases an input (mutating one cannot corrupt the other) and YAML output has no anchors.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

JsonDict = dict[str, Any]


def copy_json(value: Any) -> Any:
    """Copy a JSON-shaped value; several times faster than ``copy.deepcopy`` for this shape."""
    if isinstance(value, dict):
        return {key: copy_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [copy_json(item) for item in value]
    return value


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> JsonDict:
    """``base`` with ``override`` merged over it: maps recursively, everything else replaced."""
    merged: JsonDict = {key: copy_json(value) for key, value in base.items()}
    for key, value in override.items():
        current = merged.get(key)
        if isinstance(current, dict) and isinstance(value, Mapping):
            merged[key] = deep_merge(current, value)
        else:
            merged[key] = copy_json(value)
    return merged


def merge_named(*layers: Iterable[Mapping[str, Any]] | None) -> list[JsonDict]:
    """Entries keyed by ``name``, later layers replacing earlier ones; first-seen order kept."""
    by_name: dict[str, JsonDict] = {}
    for layer in layers:
        for entry in layer or ():
            by_name[str(entry.get("name", ""))] = copy_json(dict(entry))
    return list(by_name.values())


def merge_env(*layers: Iterable[Mapping[str, Any]] | None) -> list[JsonDict]:
    """Env vars from lowest to highest precedence, sorted by name for stable pod templates."""
    return sorted(merge_named(*layers), key=lambda entry: str(entry.get("name", "")))


def env_var(name: str, value: str) -> JsonDict:
    return {"name": name, "value": value}


def without_keys(source: Mapping[str, Any], keys: Sequence[str]) -> JsonDict:
    return {key: value for key, value in source.items() if key not in keys}
