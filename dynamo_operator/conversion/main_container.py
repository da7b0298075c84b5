"""The container named ``main``: v1alpha1 spreads it over several service fields, v1beta1 has one.

v1alpha1 -> v1beta1 merges, as the builders do (each later source wins at runtime):
- ``env``: ``mainContainer.env`` then ``envs`` (a later entry of the same name wins, and the
  builders let ``envs`` win), so nothing is dropped;
- ``envFrom``: ``mainContainer.envFrom`` then ``{secretRef: {name: envFromSecret}}``;
- ``resources``: ``mainContainer.resources`` with the service's ``resources`` over it (``gpu``
  under ``gpuType`` or ``nvidia.com/gpu``, ``custom`` keys as they are), claims merged by name;
- ``livenessProbe``/``readinessProbe``: the service's, else ``mainContainer``'s;
- ``volumeMounts``: the PVC mounts (``{name, mountPath}``) then ``mainContainer.volumeMounts``.

v1beta1 -> v1alpha1 splits back, into the dedicated fields by default and as the hints say when
the original had put something in ``mainContainer``.
"""

from __future__ import annotations

from typing import Any, Final

from dynamo_operator.constants import MAIN_CONTAINER_NAME
from dynamo_operator.conversion.resources import merged_resources, resource_hints, split_resources
from dynamo_operator.conversion.wire import JsonDict, as_dict, as_list, copy_json

MERGED_FIELDS: Final = frozenset(
    {"name", "env", "envFrom", "resources", "livenessProbe", "readinessProbe", "volumeMounts"}
)
PROBES: Final = ("livenessProbe", "readinessProbe")
_ENV_KEYS: Final = frozenset({"name", "value", "valueFrom"})
_MOUNT_KEYS: Final = frozenset({"name", "mountPath"})


def build_main(service: JsonDict, pvc_mounts: list[JsonDict]) -> JsonDict | None:
    """The v1beta1 main container of a v1alpha1 service, or None when nothing sets it."""
    given = main_container_of(service)
    user = given or {}
    main: JsonDict = {"name": MAIN_CONTAINER_NAME}
    for key, value in user.items():
        if key not in MERGED_FIELDS:
            main[key] = copy_json(value)
    own_env, envs = as_list(user.get("env")), as_list(service.get("envs"))
    if own_env is not None or envs is not None:
        main["env"] = copy_json((own_env or []) + (envs or []))
    own_env_from, secret = as_list(user.get("envFrom")), _text(service.get("envFromSecret"))
    if own_env_from is not None or secret:
        main["envFrom"] = copy_json(own_env_from or []) + (_secret_ref(secret) if secret else [])
    resources = merged_resources(as_dict(service.get("resources")), as_dict(user.get("resources")))
    if resources:
        main["resources"] = resources
    for probe in PROBES:
        top, own = service.get(probe), user.get(probe)
        chosen = top if top is not None and (top or own is None) else own
        if chosen is not None:
            main[probe] = copy_json(chosen)
    own_mounts = as_list(user.get("volumeMounts"))
    if pvc_mounts or own_mounts is not None:
        main["volumeMounts"] = copy_json(pvc_mounts + (own_mounts or []))
    return main if len(main) > 1 or given is not None else None


def main_container_of(service: JsonDict) -> JsonDict | None:
    """``extraPodSpec.mainContainer`` when it is an object."""
    pod_spec = as_dict(service.get("extraPodSpec"))
    return as_dict(pod_spec.get("mainContainer")) if pod_spec else None


def split_main(main: JsonDict, hints: JsonDict) -> tuple[JsonDict, JsonDict, list[JsonDict]]:
    """(service fields, mainContainer, PVC mounts) of a v1beta1 main container."""
    service: JsonDict = {}
    user = {k: copy_json(v) for k, v in main.items() if k not in MERGED_FIELDS}
    if "resources" in main and not isinstance(main["resources"], dict):
        user["resources"] = copy_json(main["resources"])
    _split_env(main, hints, service, user)
    _split_env_from(main, hints, service, user)
    if isinstance(main.get("resources"), dict):
        alpha, own = split_resources(main["resources"], hints)
        if alpha:
            service["resources"] = alpha
        if own:
            user["resources"] = own
    hinted = hints.get("probe")
    own_probes: list[Any] = hinted if isinstance(hinted, list) else []
    for probe in PROBES:
        if probe in main:
            (user if probe in own_probes else service)[probe] = copy_json(main[probe])
    pvc_mounts = _split_mounts(main, hints, user)
    return service, user, pvc_mounts


def main_hints(service: JsonDict, main: JsonDict | None, pvc_names: list[Any]) -> JsonDict:
    """Where the v1alpha1 service had put what its main container merges (defaults omitted)."""
    if main is None:
        return {}
    hints: JsonDict = {}
    user = main_container_of(service) or {}
    env = as_list(main.get("env"))
    own_env = as_list(user.get("env"))
    if env is not None and (len(own_env) if own_env else 0) != default_env_split(env):
        hints["env"] = len(own_env) if own_env else 0
    own_env_from = as_list(user.get("envFrom"))
    if not _text(service.get("envFromSecret")) and own_env_from and _secret_name(own_env_from[-1]):
        hints["secret"] = 0
    probes = [p for p in PROBES if service.get(p) is None and user.get(p) is not None]
    if probes:
        hints["probe"] = probes
    hints.update(resource_hints(as_dict(service.get("resources")), as_dict(user.get("resources"))))
    if pvc_names:
        hints["pvc"] = pvc_names
    return hints


def default_env_split(env: list[Any]) -> int:
    """Where a v1beta1 env list splits by default: the longest tail that ``envs`` can hold."""
    split, seen = len(env), set()
    for index in range(len(env) - 1, -1, -1):
        entry = env[index]
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str) or name in seen or not set(entry) <= _ENV_KEYS:
            break
        seen.add(name)
        split = index
    return split


def _split_env(main: JsonDict, hints: JsonDict, service: JsonDict, user: JsonDict) -> None:
    if "env" not in main:
        return
    env = main["env"]
    if not isinstance(env, list):
        user["env"] = copy_json(env)
        return
    split = hints.get("env")
    if not isinstance(split, int) or isinstance(split, bool):
        split = default_env_split(env)
    split = min(max(split, 0), len(env))
    if split:
        user["env"] = copy_json(env[:split])
    if split < len(env):
        service["envs"] = copy_json(env[split:])


def _split_env_from(main: JsonDict, hints: JsonDict, service: JsonDict, user: JsonDict) -> None:
    if "envFrom" not in main:
        return
    env_from = main["envFrom"]
    if not isinstance(env_from, list):
        user["envFrom"] = copy_json(env_from)
        return
    secret = _secret_name(env_from[-1]) if env_from and hints.get("secret") != 0 else None
    if secret:
        service["envFromSecret"] = secret
        env_from = env_from[:-1]
    if env_from:
        user["envFrom"] = copy_json(env_from)


def _split_mounts(main: JsonDict, hints: JsonDict, user: JsonDict) -> list[JsonDict]:
    if "volumeMounts" not in main:
        return []
    mounts = main["volumeMounts"]
    if not isinstance(mounts, list):
        user["volumeMounts"] = copy_json(mounts)
        return []
    hinted = hints.get("pvc")
    wanted = [name for name in hinted if isinstance(name, str)] if isinstance(hinted, list) else []
    pvc: list[JsonDict] = []
    own: list[Any] = []
    for mount in mounts:
        name = mount.get("name") if isinstance(mount, dict) else None
        if isinstance(name, str) and name in wanted and set(mount) <= _MOUNT_KEYS:
            wanted.remove(name)
            entry: JsonDict = {"name": name}
            if "mountPath" in mount:
                entry["mountPoint"] = copy_json(mount["mountPath"])
            pvc.append(entry)
        else:
            own.append(copy_json(mount))
    if own:
        user["volumeMounts"] = own
    return pvc


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _secret_ref(name: str) -> list[JsonDict]:
    return [{"secretRef": {"name": name}}]


def _secret_name(entry: Any) -> str | None:
    if not (isinstance(entry, dict) and set(entry) == {"secretRef"}):
        return None
    ref = entry["secretRef"]
    if not (isinstance(ref, dict) and set(ref) == {"name"}):
        return None
    return _text(ref["name"])
