"""The component's main container: defaults, then user overrides, then the multinode rules.

Order (each step wins over the previous ones):
1. defaults of the component type: ports, probes, env (plus NATS/etcd from operator flags and
   discovery), the launch command the user leaves out (``default_launch``);
2. ``extraPodSpec.mainContainer`` merged over them: scalar fields and lists such as ``args`` are
   replaced, ``env`` and ``ports`` merge by name, a probe with its own handler replaces ours and a
   probe with timings only tunes ours, ``startupProbe`` always replaces;
3. the service's ``envs`` (by name), top-level ``livenessProbe``/``readinessProbe`` (wholesale),
   ``resources``, ``envFromSecret``, PVC mounts and shared memory;
4. the multinode rules of the backend and role (``multinode.py``), which beat user probes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from dynamo_operator.api.constants import BackendFramework, ComponentType
from dynamo_operator.builders.component import Component
from dynamo_operator.builders.context import BuildContext
from dynamo_operator.builders.discovery import component_discovery_backend
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
from dynamo_operator.constants import (
    DEFAULT_SHELL_COMMAND,
    FRONTEND_DEFAULT_ARGS,
    FRONTEND_DEFAULT_COMMAND,
    MAIN_CONTAINER_NAME,
    Env,
)

_PYTHON = re.compile(r"^(.*/)?python[0-9]*(\.[0-9]+)*$")
"""A Python interpreter, bare or by path (``python3``, ``/usr/bin/python3.11``): upstream's test."""
_SHELL_SYNTAX = re.compile(r"[\s$;&|<>()`'\"\\]")
"""What makes an argument a shell script rather than a word: spaces, quotes, expansions,
operators, redirections."""
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


def default_launch(
    component_type: str, command: Sequence[str], args: Sequence[str]
) -> tuple[list[str], list[str]]:
    """The main container's command and args: the user's, completed as upstream's operator does.

    A component that gives args and no command, the first a shell script (spaces or shell
    syntax), runs them under ``/bin/sh -c`` (upstream's default command); args that are words go
    to the image's entrypoint, as Kubernetes defines them. A frontend otherwise runs
    ``python3 -m dynamo.frontend`` (``_frontend_launch``). An empty list is unset.
    """
    command, args = list(command), list(args)
    if not command and args and _SHELL_SYNTAX.search(args[0]):
        return list(DEFAULT_SHELL_COMMAND), args
    if component_type == ComponentType.FRONTEND:
        return _frontend_launch(command, args)
    return command, args


def _frontend_launch(command: list[str], args: list[str]) -> tuple[list[str], list[str]]:
    """Upstream's shape, ``command: [python3]`` and ``args: [-m, dynamo.frontend]``, filling in
    what the user leaves out: a bare Python interpreter as command gets the module as args; args
    alone run under ``python3``, after the module unless they name what Python runs (``-m``,
    ``-c`` or a script), so args that are only flags are the frontend's flags."""
    if command and args:
        return command, args
    if command:
        bare_python = len(command) == 1 and _PYTHON.match(command[0]) is not None
        return command, list(FRONTEND_DEFAULT_ARGS) if bare_python else []
    if not args:
        return list(FRONTEND_DEFAULT_COMMAND), list(FRONTEND_DEFAULT_ARGS)
    names_program = any(arg in ("-m", "-c") for arg in args) or not args[0].startswith("-")
    module = [] if names_program else list(FRONTEND_DEFAULT_ARGS)
    return list(FRONTEND_DEFAULT_COMMAND), [*module, *args]


def _words(value: Any) -> list[str]:
    return [str(word) for word in value] if isinstance(value, list) else []


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
        standard_env(
            context.settings,
            component_discovery_backend(component.annotations, context.settings),
        ),
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
    command, args = default_launch(
        component.component_type, _words(user.get("command")), _words(user.get("args"))
    )
    for key, words in (("command", command), ("args", args)):
        if words:
            container[key] = words
        else:
            container.pop(key, None)
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
