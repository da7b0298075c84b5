"""Warnings for multinode workers whose pods the operator cannot wire together as asked.

The pods of a multinode worker find each other through what the operator puts on the engine's
launch command (``builders/multinode.py``). Each case below is admitted (its pods run) with a
warning naming the field, because the group will not form as its author may expect:
- the backend is unknown (no ``backendFramework``, no ``python3 -m dynamo.<backend>``): no
  wiring at all, every pod runs the same command and the workers keep their probes (upstream's
  no-op backend does the same, silently);
- flags are needed but the script has no launch command (or does not parse): they go on no
  command; upstream would put them on the first Python command mentioning the backend, or end
  the script with them;
- vLLM with nothing that spans pods (tensor x pipeline parallelism within one pod, no
  ``--data-parallel-size``) or no GPU count: as upstream, no flags; each pod runs its own engine.
The builders' own view decides each case: the container as they complete it (``default_launch``)
and the same ``find_launch`` and ``vllm_multinode_mode``.
"""

from __future__ import annotations

from typing import Any

from dynamo_operator.api import BackendFramework, DynamoComponentDeploymentSharedSpec
from dynamo_operator.api.constants import WORKER_LIKE_COMPONENT_TYPES
from dynamo_operator.builders import (
    Launch,
    default_launch,
    find_launch,
    gpus_per_node,
    vllm_multinode_mode,
)
from dynamo_operator.field_paths import join_path
from dynamo_operator.validation.collector import IssueCollector

__all__ = ["check_multinode_launch"]

_FLAGS_ON_NO_COMMAND = "the flags go on no command (no other program gets them)"
_UNWIRED = {
    BackendFramework.SGLANG: ("--dist-init-addr, --nnodes and --node-rank", _FLAGS_ON_NO_COMMAND),
    BackendFramework.TRTLLM: (
        "trtllm-llmapi-launch",
        "it goes in front of the whole script, as upstream's operator puts it",
    ),
}


def check_multinode_launch(
    service: DynamoComponentDeploymentSharedSpec,
    path: str,
    backend: BackendFramework | None,
    issues: IssueCollector,
) -> None:
    component_type = service.component_type or ""
    if not service.is_multinode or component_type not in WORKER_LIKE_COMPONENT_TYPES:
        return
    if backend is None:
        issues.warn(
            join_path(path, "multinode"),
            f"{service.node_count} nodes but the backend is unknown (no backendFramework, no "
            "`python3 -m dynamo.<vllm|sglang|trtllm>` in extraPodSpec.mainContainer): every pod "
            "runs the same command with no leader/worker wiring and the workers keep their "
            "probes; set backendFramework",
        )
        return
    launch = find_launch(_completed_container(service, component_type), backend)
    if backend == BackendFramework.VLLM:
        _check_vllm(service, path, launch, issues)
    elif not launch.commands:
        _warn_no_launch(path, backend, launch, *_UNWIRED[backend], issues)


def _completed_container(
    service: DynamoComponentDeploymentSharedSpec, component_type: str
) -> dict[str, Any]:
    user = (service.extra_pod_spec.main_container if service.extra_pod_spec else None) or {}
    command, args = default_launch(
        component_type, _words(user.get("command")), _words(user.get("args"))
    )
    return {"command": command, "args": args}


def _check_vllm(
    service: DynamoComponentDeploymentSharedSpec,
    path: str,
    launch: Launch,
    issues: IssueCollector,
) -> None:
    resources = service.resources
    gpus = gpus_per_node(
        resources.model_dump(by_alias=True, exclude_none=True) if resources else None
    )
    mode = vllm_multinode_mode(launch.words, gpus)
    if mode == "ray" and not launch.commands:
        consequence = "it goes on no command; the leader starts the Ray head and runs the script"
        _warn_no_launch(
            path,
            BackendFramework.VLLM,
            launch,
            "--distributed-executor-backend ray",
            consequence,
            issues,
        )
    elif mode == "data-parallel" and not launch.commands:
        _warn_no_launch(
            path,
            BackendFramework.VLLM,
            launch,
            "the data-parallel flags",
            _FLAGS_ON_NO_COMMAND,
            issues,
        )
    elif mode is None and gpus <= 0:
        issues.warn(
            join_path(path, "resources"),
            "no GPU count (limits.gpu or requests.gpu) on a multinode vLLM component: the "
            "operator cannot size Ray or data parallelism and adds no multinode flags, so each "
            "pod runs an engine of its own",
        )
    elif mode is None:
        issues.warn(
            join_path(path, "multinode"),
            f"vLLM on {service.node_count} pods with tensor x pipeline parallelism within one "
            f"pod's {gpus} GPUs and no --data-parallel-size: as upstream, no multinode flags are "
            "added, so each pod runs an engine of its own; give --data-parallel-size (data "
            f"parallelism across the pods) or a tensor x pipeline size above {gpus} (Ray)",
        )


def _warn_no_launch(
    path: str,
    backend: BackendFramework,
    launch: Launch,
    what: str,
    consequence: str,
    issues: IssueCollector,
) -> None:
    issues.warn(
        join_path(path, "extraPodSpec", "mainContainer"),
        f"no {backend} launch command to put {what} on: {launch.problem}; {consequence}",
    )


def _words(value: object) -> list[str]:
    return [str(word) for word in value] if isinstance(value, list) else []
