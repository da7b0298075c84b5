"""The component's main container: defaults, then user overrides, then the multinode rules.

Order (each step wins over the previous ones):
1. defaults of the component type: ports, probes, env (plus NATS/etcd from operator flags and
   discovery), the frontend's command when it has none;
2. ``extraPodSpec.mainContainer`` merged over them: scalar fields and lists such as ``args`` are
   replaced, ``env`` and ``ports`` merge by name, a probe with its own handler replaces ours and a
   probe with timings only tunes ours, ``startupProbe`` always replaces;
3. the service's ``envs`` (by name), top-level ``livenessProbe``/``readinessProbe`` (wholesale),
   ``resources``, ``envFromSecret``, PVC mounts and shared memory;
4. the multinode rules of the backend and role (``multinode.py``), which beat user probes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_operator.api.constants import BackendFramework, ComponentType
from dynamo_operator.builders.component import Component
from dynamo_operator.builders.context import BuildContext
from dynamo_operator.builders.env import component_type_env, identity_env, standard_env
from dynamo_operator.builders.merge import (
    JsonDict,
    copy_json,
    deep_merge,
    env_var,
    merge_env,
    merge_named,
)
from dynamo_operator.builders.multinode import Role, apply_multinode_container_rules
from dynamo_operator.builders.ports import default_container_ports
from dynamo_operator.builders.probes import default_probes
from dynamo_operator.builders.resources import build_container_resources
from dynamo_operator.builders.volumes import (
    PersistentVolumeMounts,
    is_shared_memory_mount,
    shared_memory_mount,
)
from dynamo_operator.constants import FRONTEND_DEFAULT_COMMAND, MAIN_CONTAINER_NAME, Env

_PROBE_HANDLERS = ("httpGet", "exec", "tcpSocket", "grpc")
_MERGED_FIELDS = frozenset(
    {
        "name",
        "ports",
        "env",
        "envFrom",
        "resources",
        "livenessProbe",
        "readinessProbe",
        "startupProbe",
        "volumeMounts",
    }
)


def merge_probe(default: JsonDict | None, override: Mapping[str, Any] | None) -> JsonDict | None:
    """A probe naming its own handler replaces the default; timings alone tune the default."""
    if not override:
        return default
    if default is None or any(handler in override for handler in _PROBE_HANDLERS):
        replacement: JsonDict = copy_json(dict(override))
        return replacement
    return deep_merge(default, override)


def _container_env(
    component: Component, context: BuildContext, compilation_cache_path: str | None
) -> list[JsonDict]:
    backend_env: list[JsonDict] = []
    if compilation_cache_path and component.backend == BackendFramework.VLLM:
        backend_env.append(env_var(Env.VLLM_CACHE_ROOT, compilation_cache_path))
    return merge_env(
        standard_env(context.settings),
        identity_env(component.dynamo_namespace, component.graph_name, component.namespace),
        component_type_env(component.component_type),
        backend_env,
        component.main_container.get("env"),
        component.spec.get("envs"),
    )


def _env_from(component: Component) -> list[JsonDict]:
    env_from: list[JsonDict] = copy_json(list(component.main_container.get("envFrom") or ()))
    secret = component.spec.get("envFromSecret")
    if secret and {"secretRef": {"name": secret}} not in env_from:
        env_from.append({"secretRef": {"name": secret}})
    return env_from


def _volume_mounts(
    component: Component, persistent: PersistentVolumeMounts, shared_memory: bool
) -> list[JsonDict]:
    user_mounts = component.main_container.get("volumeMounts") or ()
    if shared_memory:
        user_mounts = [mount for mount in user_mounts if not is_shared_memory_mount(mount)]
    mounts = merge_named(user_mounts, persistent.mounts)
    if shared_memory:
        mounts.append(shared_memory_mount())
    return mounts


def _probes(component: Component) -> dict[str, JsonDict | None]:
    user = component.main_container
    defaults = default_probes(component.component_type)
    liveness = component.spec.get("livenessProbe")
    readiness = component.spec.get("readinessProbe")
    startup = user.get("startupProbe")
    return {
        "livenessProbe": copy_json(liveness)
        if liveness
        else merge_probe(defaults.liveness, user.get("livenessProbe")),
        "readinessProbe": copy_json(readiness)
        if readiness
        else merge_probe(defaults.readiness, user.get("readinessProbe")),
        "startupProbe": copy_json(startup) if startup else defaults.startup,
    }


def build_main_container(
    component: Component,
    context: BuildContext,
    persistent: PersistentVolumeMounts,
    *,
    shared_memory: bool,
    role: Role = "main",
) -> JsonDict:
    """The container named ``main`` for one pod role of the component."""
    user = component.main_container
    container: JsonDict = {"name": MAIN_CONTAINER_NAME}
    for key, value in user.items():
        if key not in _MERGED_FIELDS:
            container[key] = copy_json(value)
    if component.component_type == ComponentType.FRONTEND and not container.get("command"):
        # Without it the pod runs the image's entrypoint, not the frontend; args given alone are
        # the frontend's flags.
        container["command"] = list(FRONTEND_DEFAULT_COMMAND)
    ports = merge_named(default_container_ports(component.component_type), user.get("ports"))
    if ports:
        container["ports"] = ports
    container["env"] = _container_env(component, context, persistent.compilation_cache_path)
    env_from = _env_from(component)
    if env_from:
        container["envFrom"] = env_from
    resources = build_container_resources(component.spec.get("resources"), user.get("resources"))
    if resources:
        container["resources"] = resources
    for name, probe in _probes(component).items():
        if probe is not None:
            container[name] = probe
    mounts = _volume_mounts(component, persistent, shared_memory)
    if mounts:
        container["volumeMounts"] = mounts
    if component.is_multinode:
        apply_multinode_container_rules(container, component, context, role)
    return container
