"""TensorRT-LLM multinode scripts: the leader runs ``mpirun`` over SSH, the workers run sshd.

The leader starts every rank of the group with ``mpirun ... bash -c '<script>'``, the user's
script with ``trtllm-llmapi-launch`` in front of the engine's launch command (``find_launch``);
when the script has none, in front of the whole script, as upstream's ``backend_trtllm.go`` does.
The script's positional arguments (``sh -c '<script>' $0 $1...``) follow it again.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from dynamo_operator.builders.launch_commands import LEADER, Launch
from dynamo_operator.constants import MPI_SSH_MOUNT_PATH, Ports

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
    "TRTLLM_USE_UCX_KVCACHE",
    "USER",
)
LLMAPI_LAUNCH = "trtllm-llmapi-launch"
_HOST_KEYS = "$HOME/.ssh/host_keys"
_HOST_KEY_TYPES = ("rsa", "ecdsa", "ed25519")

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


def _rank_script(launch: Launch) -> str:
    """What each MPI rank runs: ``bash -c`` over the user's script with the launcher in it."""
    if launch.commands:
        script = launch.prefixed(LLMAPI_LAUNCH)
    else:
        script = f"{LLMAPI_LAUNCH} {launch.script.script}"
    return shlex.join(["bash", "-c", script, *launch.script.positional])


def trtllm_leader_script(
    launch: Launch, *, node_count: int, gpus_per_node: int, env_names: Sequence[str]
) -> str:
    slots = max(gpus_per_node, 1)
    forwarded = sorted({*env_names, *MPI_FORWARDED_ENV})
    forward_flags = " ".join(f"-x {name}" for name in forwarded)
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
        f"{forward_flags} {_rank_script(launch)}"
    )


def trtllm_worker_script() -> str:
    """sshd on the MPI port as upstream configures it, runnable without root (uid 1000 images):
    host keys, pid file and config under ``$HOME``, ``StrictModes no`` (a home owned by another
    uid), no ``/run/sshd`` (only a root sshd needs it). Keys that exist (a restarted container on
    a persistent home) are kept: ``ssh-keygen`` would ask before overwriting and fail."""
    keys = " && ".join(
        f'{{ [ -f "{_HOST_KEYS}/ssh_host_{kind}_key" ] || '
        f"ssh-keygen -q -t {kind} -N '' -f \"{_HOST_KEYS}/ssh_host_{kind}_key\"; }}"
        for kind in _HOST_KEY_TYPES
    )
    config = " ".join(
        f'"{line}"'
        for line in (
            f"Port {Ports.MPI_SSH}",
            *(f"HostKey {_HOST_KEYS}/ssh_host_{kind}_key" for kind in _HOST_KEY_TYPES),
            "PidFile $HOME/.ssh/run/sshd.pid",
            "StrictModes no",
            "PermitRootLogin yes",
            "PasswordAuthentication no",
            "PubkeyAuthentication yes",
            "AuthorizedKeysFile $HOME/.ssh/authorized_keys",
        )
    )
    return (
        f"{_SSH_KEYS} && "
        f'mkdir -p "{_HOST_KEYS}" "$HOME/.ssh/run" && {keys} && '
        f"printf '%s\\n' {config} > \"$HOME/.ssh/sshd_config\" && "
        'exec /usr/sbin/sshd -D -e -f "$HOME/.ssh/sshd_config"'
    )
