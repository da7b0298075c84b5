"""Default environment variables per component type, and the operator-wide standard env.

Precedence, lowest first: standard env (NATS/etcd addresses from operator flags, how Dynamo's
processes discover each other, the pod's identity from the downward API), component-type
defaults (``DYN_COMPONENT`` and the type's own), ``extraPodSpec.mainContainer.env``, the
service's ``envs``. User values win on a name clash; the result is sorted by name (see
``merge.merge_env``).
"""

from __future__ import annotations

from dynamo_operator.api.constants import WORKER_LIKE_COMPONENT_TYPES, ComponentType
from dynamo_operator.builders.merge import JsonDict, env_var
from dynamo_operator.constants import Env, Ports
from dynamo_operator.settings import DiscoveryBackend, OperatorSettings


def standard_env(settings: OperatorSettings, discovery_backend: DiscoveryBackend) -> list[JsonDict]:
    """Addresses of the Dynamo control plane when the operator was given them, the discovery
    backend, and the pod's own identity: a worker publishes its DynamoWorkerMetadata named after
    its pod and owned by it, so Kubernetes discovery needs all three ``POD_*``.

    ``DYN_DISCOVERY_BACKEND=kubernetes`` with Kubernetes discovery; with etcd none, as upstream
    renders it: etcd is the runtime's default (``discovery.component_discovery_backend``)."""
    env: list[JsonDict] = []
    if settings.nats_addr:
        env.append(env_var(Env.NATS_SERVER, settings.nats_addr))
    if settings.etcd_addr:
        env.append(env_var(Env.ETCD_ENDPOINTS, settings.etcd_addr))
    if discovery_backend == "kubernetes":
        env.append(env_var(Env.DYN_DISCOVERY_BACKEND, discovery_backend))
    env.extend(
        _field_ref(name, path)
        for name, path in (
            (Env.POD_NAME, "metadata.name"),
            (Env.POD_NAMESPACE, "metadata.namespace"),
            (Env.POD_UID, "metadata.uid"),
        )
    )
    return env


def _field_ref(name: str, field_path: str) -> JsonDict:
    return {"name": name, "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": field_path}}}


def identity_env(
    dynamo_namespace: str, graph_name: str | None, graph_namespace: str
) -> list[JsonDict]:
    """Where the component sits: its Dynamo namespace and its parent graph, if it has one."""
    env = [env_var(Env.DYN_NAMESPACE, dynamo_namespace)]
    if graph_name:
        env.append(env_var(Env.PARENT_DGD_NAME, graph_name))
        env.append(env_var(Env.PARENT_DGD_NAMESPACE, graph_namespace))
    return env


def component_type_env(component_type: str) -> list[JsonDict]:
    """``DYN_COMPONENT``: the component's type, for every component that has one (upstream's
    ``component_common.go``); then what the type itself needs."""
    env = [env_var(Env.DYN_COMPONENT, component_type)] if component_type else []
    return env + _type_defaults(component_type)


def _type_defaults(component_type: str) -> list[JsonDict]:
    if component_type == ComponentType.FRONTEND:
        port = str(Ports.FRONTEND_HTTP)
        return [env_var(Env.DYNAMO_PORT, port), env_var(Env.DYN_HTTP_PORT, port)]
    if component_type in WORKER_LIKE_COMPONENT_TYPES:
        return [
            env_var(Env.DYN_SYSTEM_ENABLED, "true"),
            env_var(Env.DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS, '["generate"]'),
            env_var(Env.DYN_SYSTEM_PORT, str(Ports.SYSTEM)),
            # The runtime's canary health check races a worker's own registration (a request
            # before its endpoint subscribes fails, ai-dynamo/dynamo#5038): off, as upstream
            # renders it for a runtime whose version it does not know.
            env_var(Env.DYN_HEALTH_CHECK_ENABLED, "false"),
        ]
    if component_type == ComponentType.PLANNER:
        return [
            env_var(Env.PLANNER_PROMETHEUS_PORT, str(Ports.PLANNER_METRICS)),
            env_var(Env.DYN_SYSTEM_PORT, str(Ports.SYSTEM)),
        ]
    return []
