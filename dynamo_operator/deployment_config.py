"""``DYN_DEPLOYMENT_CONFIG``: the SDK-era per-service configuration a graph may carry in its envs.

The value is JSON keyed by service name. When a graph generates its components, upstream's
``GenerateDynamoComponentsDeployments`` reads it from each component's envs (the graph's, under
the service's own) and, for that component's entry:

- ``ServiceArgs.Workers`` becomes ``replicas`` when the service gives none;
- ``ServiceArgs.Resources`` ``CPU``, ``Memory``, ``GPU`` (strings) become both the request and the
  limit of that resource, ``Custom`` (name -> string) the custom ones;
- on a frontend, the entry's ``port`` is set to 8000 (the frontend's HTTP port) and the value is
  written back as Go writes JSON (keys sorted, no spaces, ``<``, ``>``, ``&`` escaped).

Field names match whatever their case (``Workers``, ``workers``), as Go's JSON decoder matches
them; other fields are left alone. A value that is not such JSON is an error naming the variable,
refused at admission (``validation``) and by the builders. A value taken from ``valueFrom`` is the
pod's business only: nothing to read here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from dynamo_operator.constants import Env, Ports

__all__ = [
    "DeploymentConfig",
    "DeploymentConfigError",
    "ServiceOverrides",
    "deployment_config_text",
    "parse_deployment_config",
]

INT32_MAX = 2**31 - 1
RESOURCE_FIELDS = ("cpu", "memory", "gpu")


class DeploymentConfigError(ValueError):
    """The value of ``DYN_DEPLOYMENT_CONFIG`` is not the JSON the operator reads."""


@dataclass(frozen=True, slots=True)
class ServiceOverrides:
    """What one service's entry changes in its component."""

    workers: int | None = None
    resources: Mapping[str, str] = field(default_factory=dict)
    """``cpu``, ``memory``, ``gpu`` given, each as request and limit."""
    custom: Mapping[str, str] | None = None
    """``Custom``: replaces the custom resources of both sides when given."""


@dataclass(frozen=True, slots=True)
class DeploymentConfig:
    document: Mapping[str, Any] | None
    """The parsed JSON object (None for ``null``)."""
    services: Mapping[str, ServiceOverrides]

    def with_frontend_port(self, service_name: str) -> str:
        """The value with ``service_name``'s entry on the frontend's port, as Go writes JSON."""
        document = json.loads(json.dumps(self.document))  # a deep copy
        if isinstance(document, dict) and isinstance(document.get(service_name), dict):
            document[service_name]["port"] = Ports.FRONTEND_HTTP
        return _go_json(document)


def deployment_config_text(envs: object) -> str | None:
    """The value of ``DYN_DEPLOYMENT_CONFIG`` among ``envs`` (wire form), None when it is absent
    or comes from ``valueFrom``."""
    for entry in envs if isinstance(envs, list) else ():
        if isinstance(entry, Mapping) and entry.get("name") == Env.DYN_DEPLOYMENT_CONFIG:
            if entry.get("valueFrom") is not None:
                return None
            return str(entry.get("value") or "")
    return None


def parse_deployment_config(text: str) -> DeploymentConfig:
    """The configuration in ``text``; ``DeploymentConfigError`` saying what is wrong."""
    try:
        document = json.loads(text, parse_constant=_not_json)
    except ValueError as error:
        raise DeploymentConfigError(f"{Env.DYN_DEPLOYMENT_CONFIG} is not JSON: {error}") from None
    if document is None:
        return DeploymentConfig(None, {})
    if not isinstance(document, dict):
        raise DeploymentConfigError(
            f"{Env.DYN_DEPLOYMENT_CONFIG} must be a JSON object keyed by service name"
        )
    services = {
        name: _service(name, entry) for name, entry in document.items() if entry is not None
    }
    return DeploymentConfig(document, services)


def _service(name: str, entry: object) -> ServiceOverrides:
    where = f"{Env.DYN_DEPLOYMENT_CONFIG} {name}"
    arguments = _object(_field(_object(entry, where), "ServiceArgs"), f"{where}.ServiceArgs")
    if not arguments:
        return ServiceOverrides()
    workers = _field(arguments, "Workers")
    if workers is not None and not (
        isinstance(workers, int) and not isinstance(workers, bool) and 0 <= workers <= INT32_MAX
    ):
        raise DeploymentConfigError(f"{where}.ServiceArgs.Workers must be a whole number >= 0")
    resources = _object(_field(arguments, "Resources"), f"{where}.ServiceArgs.Resources")
    amounts = {
        key: _string(_field(resources, key), f"{where}.ServiceArgs.Resources.{key.upper()}")
        for key in RESOURCE_FIELDS
    }
    custom_where = f"{where}.ServiceArgs.Resources.Custom"
    custom = _field(resources, "Custom")
    return ServiceOverrides(
        workers=workers,
        resources={key: amount for key, amount in amounts.items() if amount is not None},
        custom=None
        if custom is None
        else {
            str(key): str(_string(value, f"{custom_where}.{key}") or "")
            for key, value in _object(custom, custom_where).items()
        },
    )


def _field(entry: Mapping[str, Any], name: str) -> Any:
    """The value of the key matching ``name`` whatever its case (the last one, as Go decodes)."""
    found = None
    for key, value in entry.items():
        if key.lower() == name.lower():
            found = value
    return found


def _object(value: object, where: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise DeploymentConfigError(f"{where} must be a JSON object")
    return value


def _string(value: object, where: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise DeploymentConfigError(f"{where} must be a string (a quantity in quotes)")
    return value


def _not_json(constant: str) -> None:
    raise ValueError(f"{constant} is not a JSON value")


def _go_json(document: object) -> str:
    """JSON as Go's ``json.Marshal`` writes a map: keys sorted, compact, HTML-safe."""
    text = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    for char, escaped in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(char, escaped)
    return text
