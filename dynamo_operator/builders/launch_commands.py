"""Multinode launch commands per backend: how leader and worker pods find each other.

Every multinode container runs ``/bin/sh -c <script>``. The user's command is turned into one shell
string first, unwrapping an existing ``sh -c "<script>"`` instead of nesting it (upstream produced
``... && /bin/sh -c python ...``, ai-dynamo/dynamo#5719). LeaderWorkerSet injects
``LWS_LEADER_ADDRESS`` (``<lws>-<group>.<lws>.<namespace>``) and ``LWS_WORKER_INDEX`` (0 for the
leader) into every pod; the scripts read them as shell variables.
"""

from __future__ import annotations

import functools
import posixpath
import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from dynamo_operator.constants import MPI_SSH_MOUNT_PATH, Ports

LEADER = "${LWS_LEADER_ADDRESS}"
WORKER_INDEX = "${LWS_WORKER_INDEX}"
_SHELLS = frozenset({"sh", "bash", "dash", "ash", "zsh"})


def user_script(container: Mapping[str, Any]) -> str:
    """The container's command and args as one shell string."""
    words = [
        str(word) for word in [*(container.get("command") or ()), *(container.get("args") or ())]
    ]
    if len(words) >= 3 and posixpath.basename(words[0]) in _SHELLS and words[1] == "-c":
        return " ".join(words[2:])
    return shlex.join(words)


@functools.lru_cache(maxsize=512)
def shell_words(script: str) -> tuple[str, ...]:
    """Words of a shell command; cached because every pod role of every replica asks again."""
    try:
        return tuple(shlex.split(script))
    except ValueError:
        return tuple(script.split())


def flag_value(script: str, *flags: str) -> str | None:
    """The value of the first of ``flags`` in a shell command (``--flag N`` or ``--flag=N``)."""
    words = shell_words(script)
    for index, word in enumerate(words):
        for flag in flags:
            if word == flag and index + 1 < len(words):
                return words[index + 1]
            if word.startswith(flag + "="):
                return word[len(flag) + 1 :]
    return None


def int_flag(script: str, *flags: str, default: int = 1) -> int:
    value = flag_value(script, *flags)
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


def vllm_ray_leader_script(script: str) -> str:
    return (
        f"ray start --head --port={Ports.RAY_HEAD} && {script} --distributed-executor-backend ray"
    )


def vllm_ray_worker_script() -> str:
    # Wait for the head instead of racing it (ai-dynamo/dynamo#14108).
    address = f"{LEADER}:{Ports.RAY_HEAD}"
    return (
        f"until ray health-check --address={address} >/dev/null 2>&1; do "
        f'echo "waiting for the Ray head at {address}"; sleep 5; done; '
        f"exec ray start --address={address} --block"
    )


def vllm_data_parallel_script(
    script: str, *, local_size: int, total_size: int | None, is_leader: bool
) -> str:
    start_rank = "0" if is_leader else f"$(({local_size} * {WORKER_INDEX}))"
    flags = ["--data-parallel-hybrid-lb"]
    if total_size is not None:
        flags += ["--data-parallel-size", str(total_size)]
    flags += [
        "--data-parallel-size-local",
        str(local_size),
        "--data-parallel-start-rank",
        start_rank,
        "--data-parallel-address",
        LEADER,
        "--data-parallel-rpc-port",
        str(Ports.VLLM_DATA_PARALLEL_RPC),
    ]
    return f"{script} {' '.join(flags)}"


def sglang_script(script: str, *, node_count: int, is_leader: bool) -> str:
    rank = "0" if is_leader else WORKER_INDEX
    return (
        f"{script} --dist-init-addr {LEADER}:{Ports.SGLANG_DIST_INIT} "
        f"--nnodes {node_count} --node-rank {rank}"
    )


MPI_FORWARDED_ENV = (
    "CUDA_VISIBLE_DEVICES",
    "HF_DATASETS_CACHE",
    "HF_ENDPOINT",
    "HF_HOME",
    "HF_TOKEN",
    "HOME",
    "HUGGING_FACE_HUB_TOKEN",
    "LD_LIBRARY_PATH",
    "MODEL_PATH",
    "NCCL_DEBUG",
    "NCCL_IB_DISABLE",
    "NCCL_P2P_DISABLE",
    "PATH",
    "PYTHONPATH",
    "TENSORRT_LLM_CACHE_DIR",
    "TOKENIZERS_PARALLELISM",
    "TRANSFORMERS_CACHE",
    "USER",
)

_SSH_KEYS = (
    'mkdir -p "$HOME/.ssh" && '
    f'cp {MPI_SSH_MOUNT_PATH}/private.key "$HOME/.ssh/id_rsa" && '
    f'cp {MPI_SSH_MOUNT_PATH}/private.key.pub "$HOME/.ssh/id_rsa.pub" && '
    f'cp {MPI_SSH_MOUNT_PATH}/private.key.pub "$HOME/.ssh/authorized_keys" && '
    'chmod 600 "$HOME/.ssh/id_rsa" "$HOME/.ssh/authorized_keys"'
)


def _hosts_script(node_count: int) -> str:
    # Worker i of a LeaderWorkerSet group is <leader pod>-<i> in the leader's subdomain.
    return (
        f'LEADER="{LEADER}"; HOSTS="$LEADER"; '
        f"for i in $(seq 1 {node_count - 1}); do "
        'HOSTS="$HOSTS,${LEADER%%.*}-$i.${LEADER#*.}"; done'
    )


def trtllm_leader_script(
    script: str, *, node_count: int, gpus_per_node: int, env_names: Sequence[str]
) -> str:
    slots = max(gpus_per_node, 1)
    forwarded = sorted({*env_names, *MPI_FORWARDED_ENV})
    forward_flags = " ".join(f"-x {name}" for name in forwarded)
    launch = shlex.quote(f"trtllm-llmapi-launch {script}")
    return (
        f"{_SSH_KEYS} && "
        f"printf 'Host *\\n  StrictHostKeyChecking no\\n  Port {Ports.MPI_SSH}\\n' "
        '> "$HOME/.ssh/config" && '
        f"{_hosts_script(node_count)}; "
        'for h in $(echo "$HOSTS" | tr , " "); do '
        'timeout 300 sh -c "until getent hosts $h >/dev/null; do sleep 2; done" '
        '|| { echo "no DNS for $h"; exit 1; }; done; '
        'MPI_HOSTS=$(echo "$HOSTS" | sed "s/\\([^,]*\\)/\\1:' + str(slots) + '/g"); '
        f"exec mpirun --allow-run-as-root --oversubscribe -n {node_count * slots} "
        '-H "$MPI_HOSTS" --mca pml ob1 '
        f'--mca plm_rsh_args "-p {Ports.MPI_SSH} -o StrictHostKeyChecking=no -i $HOME/.ssh/id_rsa" '
        f"{forward_flags} bash -c {launch}"
    )


def trtllm_worker_script() -> str:
    return (
        f"{_SSH_KEYS} && "
        'mkdir -p "$HOME/.ssh/host_keys" /run/sshd && '
        "ssh-keygen -q -t ed25519 -N '' -f \"$HOME/.ssh/host_keys/ssh_host_ed25519_key\" && "
        f"printf 'Port {Ports.MPI_SSH}\\nHostKey %s\\nPasswordAuthentication no\\n"
        "PubkeyAuthentication yes\\nPermitRootLogin yes\\nAuthorizedKeysFile %s\\n' "
        '"$HOME/.ssh/host_keys/ssh_host_ed25519_key" "$HOME/.ssh/authorized_keys" '
        '> "$HOME/.ssh/sshd_config" && '
        'exec /usr/sbin/sshd -D -e -f "$HOME/.ssh/sshd_config"'
    )
