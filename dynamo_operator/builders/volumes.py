"""Volumes of a component's pod: graph PVC mounts, the compilation cache and shared memory."""

from __future__ import annotations

from dataclasses import dataclass, field

from dynamo_operator.api.constants import BackendFramework
from dynamo_operator.builders.component import Component
from dynamo_operator.builders.errors import InvalidComponentError
from dynamo_operator.builders.merge import JsonDict
from dynamo_operator.constants import (
    SHARED_MEMORY_DEFAULT_SIZE,
    SHARED_MEMORY_MOUNT_PATH,
    SHARED_MEMORY_VOLUME_NAME,
    VLLM_DEFAULT_COMPILATION_CACHE_PATH,
)


@dataclass(frozen=True, slots=True)
class PersistentVolumeMounts:
    volumes: list[JsonDict] = field(default_factory=list)
    mounts: list[JsonDict] = field(default_factory=list)
    compilation_cache_path: str | None = None
    """Effective mount path of the first compilation-cache volume (upstream forgot defaults)."""


def build_persistent_volume_mounts(component: Component) -> PersistentVolumeMounts:
    volumes: list[JsonDict] = []
    mounts: list[JsonDict] = []
    cache_path: str | None = None
    for index, entry in enumerate(component.spec.get("volumeMounts") or ()):
        name = str(entry["name"])
        mount_point = entry.get("mountPoint")
        is_cache = bool(entry.get("useAsCompilationCache"))
        if not mount_point and is_cache and component.backend == BackendFramework.VLLM:
            mount_point = VLLM_DEFAULT_COMPILATION_CACHE_PATH
        if not mount_point:
            raise InvalidComponentError(
                f"spec.volumeMounts[{index}].mountPoint",
                "required (only vLLM has a default compilation cache path)"
                if is_cache
                else "required unless useAsCompilationCache is set with the vLLM backend",
            )
        if is_cache and cache_path is None:
            cache_path = str(mount_point)
        volumes.append({"name": name, "persistentVolumeClaim": {"claimName": name}})
        mounts.append({"name": name, "mountPath": str(mount_point)})
    return PersistentVolumeMounts(volumes, mounts, cache_path)


def shared_memory_size(component: Component) -> str | None:
    """Size of /dev/shm, or ``None`` when the user disabled shared memory."""
    shared_memory = component.spec.get("sharedMemory") or {}
    if shared_memory.get("disabled"):
        return None
    return str(shared_memory.get("size") or SHARED_MEMORY_DEFAULT_SIZE)


def shared_memory_volume(size: str) -> JsonDict:
    return {
        "name": SHARED_MEMORY_VOLUME_NAME,
        "emptyDir": {"medium": "Memory", "sizeLimit": size},
    }


def shared_memory_mount() -> JsonDict:
    return {"name": SHARED_MEMORY_VOLUME_NAME, "mountPath": SHARED_MEMORY_MOUNT_PATH}


def is_shared_memory_mount(mount: JsonDict) -> bool:
    """Mounts our shared memory replaces: same volume name or the same path."""
    return bool(
        mount.get("name") == SHARED_MEMORY_VOLUME_NAME
        or mount.get("mountPath") == SHARED_MEMORY_MOUNT_PATH
    )
