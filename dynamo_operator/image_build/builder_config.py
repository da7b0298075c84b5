"""What the ``dynamo-image-builder-config`` ConfigMap adds to every image builder Job.

The ConfigMap lives in DYNAMO_IMAGE_BUILDER_NAMESPACE; each value is a YAML document (upstream's
keys and format, so its ConfigMaps work unchanged):

``build_args``                                 list of ``KEY=VALUE`` docker build arguments
``builder_args``                               list of extra arguments of ``buildctl build`` or
                                               kaniko's executor
``extra_pod_metadata``                         ``{labels: {...}, annotations: {...}}`` of the pod
``extra_pod_spec``                             PodSpec fields (nodeSelector, tolerations,
                                               affinity, priorityClassName, serviceAccountName...)
``extra_container_env``                        list of env vars (``corev1.EnvVar``) of both
                                               containers
``default_image_builder_container_resources``  ``corev1.ResourceRequirements`` of the builder

This module is pure: the caller decodes each value (``yaml.safe_load``) and hands the decoded
mapping over; a missing ConfigMap is ``BuilderConfig()``. A component's own ``imageBuilder*``
fields come after these (they win on a clash, and its build args follow these).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from dynamo_operator.constants import IMAGE_BUILDER_OWNED_POD_FIELDS
from dynamo_operator.image_build.errors import BuilderConfigError

CONFIG_MAP_NAME: Final = "dynamo-image-builder-config"

JsonDict = dict[str, Any]


@dataclass(frozen=True, slots=True)
class BuilderConfig:
    build_args: tuple[str, ...] = ()
    builder_args: tuple[str, ...] = ()
    extra_pod_labels: Mapping[str, str] = field(default_factory=dict)
    extra_pod_annotations: Mapping[str, str] = field(default_factory=dict)
    extra_pod_spec: Mapping[str, Any] = field(default_factory=dict)
    extra_container_env: tuple[Mapping[str, Any], ...] = ()
    default_container_resources: Mapping[str, Any] | None = None


def _where(key: str) -> str:
    return f"ConfigMap {CONFIG_MAP_NAME} key {key}"


def _strings(key: str, value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise BuilderConfigError(f"{_where(key)}: must be a list of strings")
    return tuple(value)


def _string_map(key: str, value: object) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(
        isinstance(name, str) and isinstance(item, str) for name, item in value.items()
    ):
        raise BuilderConfigError(f"{_where(key)}: must map strings to strings")
    return dict(value)


def _object(key: str, value: object) -> JsonDict:
    if not isinstance(value, Mapping) or not all(isinstance(name, str) for name in value):
        raise BuilderConfigError(f"{_where(key)}: must be an object")
    return dict(value)


def _pod_metadata(value: object) -> tuple[dict[str, str], dict[str, str]]:
    metadata = _object("extra_pod_metadata", value)
    unknown = sorted(set(metadata) - {"labels", "annotations"})
    if unknown:
        raise BuilderConfigError(
            f"{_where('extra_pod_metadata')}: unknown field {unknown[0]} (labels, annotations)"
        )
    return (
        _string_map("extra_pod_metadata.labels", metadata.get("labels")),
        _string_map("extra_pod_metadata.annotations", metadata.get("annotations")),
    )


def check_pod_spec_overrides(where: str, overrides: Mapping[str, Any]) -> None:
    """Refuse the PodSpec fields the builder pod cannot give up (BuilderConfigError)."""
    owned = sorted(IMAGE_BUILDER_OWNED_POD_FIELDS & set(overrides))
    if owned:
        raise BuilderConfigError(f"{where}: {owned[0]} is set by the operator and cannot be given")


def _env(value: object) -> tuple[JsonDict, ...]:
    if not isinstance(value, list):
        raise BuilderConfigError(f"{_where('extra_container_env')}: must be a list of env vars")
    env: list[JsonDict] = []
    for index, entry in enumerate(value):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str):
            raise BuilderConfigError(
                f"{_where('extra_container_env')}[{index}]: must be an env var with a name"
            )
        env.append(dict(entry))
    return tuple(env)


def parse_builder_config(data: Mapping[str, object]) -> BuilderConfig:
    """The builder settings of the ConfigMap's ``data``, each value already decoded from YAML.
    BuilderConfigError names the key and what is wrong; unknown keys are errors too (a typo
    would otherwise silently build without the setting)."""
    unknown = sorted(set(data) - _KNOWN_KEYS)
    if unknown:
        raise BuilderConfigError(
            f"{_where(unknown[0])}: unknown key; known: {', '.join(sorted(_KNOWN_KEYS))}"
        )
    labels, annotations = _pod_metadata(data.get("extra_pod_metadata") or {})
    pod_spec = _object("extra_pod_spec", data.get("extra_pod_spec") or {})
    check_pod_spec_overrides(_where("extra_pod_spec"), pod_spec)
    resources = data.get("default_image_builder_container_resources")
    return BuilderConfig(
        build_args=_strings("build_args", data.get("build_args") or []),
        builder_args=_strings("builder_args", data.get("builder_args") or []),
        extra_pod_labels=labels,
        extra_pod_annotations=annotations,
        extra_pod_spec=pod_spec,
        extra_container_env=_env(data.get("extra_container_env") or []),
        default_container_resources=(
            None
            if resources is None
            else _object("default_image_builder_container_resources", resources)
        ),
    )


_KNOWN_KEYS: Final = frozenset(
    {
        "build_args",
        "builder_args",
        "extra_pod_metadata",
        "extra_pod_spec",
        "extra_container_env",
        "default_image_builder_container_resources",
    }
)
