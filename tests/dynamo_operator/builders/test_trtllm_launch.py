from __future__ import annotations

from pathlib import Path

from dynamo_operator.builders.launch_commands import find_launch
from dynamo_operator.builders.trtllm_launch import trtllm_leader_script, trtllm_worker_script
from dynamo_operator.constants import MPI_SSH_MOUNT_PATH

from .stub_programs import LEADER_ADDRESS, Stubs, make_stubs

KEY_TYPES = ("rsa", "ecdsa", "ed25519")
UPSTREAM_FORWARDED_ENV = {
    # backend_trtllm.go getCommonTRTLLMEnvVars: forwarded to every rank besides the pod's own env
    *("CUDA_VISIBLE_DEVICES", "MODEL_PATH", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_ENDPOINT"),
    *("TOKENIZERS_PARALLELISM", "NCCL_DEBUG", "NCCL_IB_DISABLE", "NCCL_P2P_DISABLE"),
    *("TENSORRT_LLM_CACHE_DIR", "HF_HOME", "TRANSFORMERS_CACHE", "HF_DATASETS_CACHE", "PATH"),
    *("LD_LIBRARY_PATH", "PYTHONPATH", "HOME", "USER", "TRTLLM_USE_UCX_KVCACHE"),
}


def run_leader(tmp_path: Path, container: dict[str, list[str]]) -> Stubs:
    """The leader's script under /bin/sh: ``mpirun`` records itself, then runs one rank the way
    it would on every slot (its command starts at ``bash``)."""
    stubs = make_stubs(tmp_path, "python3", "ls", "getent")
    stubs.add("mpirun", then='while [ "$1" != bash ]; do shift; done; exec "$@"')
    stubs.add("trtllm-llmapi-launch", then='exec "$@"')
    keys = tmp_path / "ssh-pk"
    keys.mkdir()
    for name in ("private.key", "private.key.pub"):
        (keys / name).write_text("key\n")
    script = trtllm_leader_script(
        find_launch(container, "trtllm"), node_count=2, gpus_per_node=4, env_names=["MODEL"]
    )
    result = stubs.run(["/bin/sh", "-c", script.replace(MPI_SSH_MOUNT_PATH, str(keys))])
    assert result.returncode == 0, result.stderr
    return stubs


def test_every_rank_runs_the_launch_behind_the_llmapi_launcher(tmp_path: Path) -> None:
    container = {
        "command": ["sh", "-c"],
        "args": ['cd /tmp && python3 -m dynamo.trtllm --model "$0" > log 2>&1; ls', "/m x"],
    }
    stubs = run_leader(tmp_path, container)

    (mpirun,) = stubs.argv_of("mpirun")
    assert mpirun[mpirun.index("-n") + 1] == "8"
    assert mpirun[mpirun.index("-H") + 1] == f"{LEADER_ADDRESS}:4,g-worker-0-1.g-worker.ns:4"
    forwarded = {mpirun[index + 1] for index, word in enumerate(mpirun) if word == "-x"}
    assert forwarded == {"MODEL", *UPSTREAM_FORWARDED_ENV}
    assert stubs.argv_of("trtllm-llmapi-launch") == [
        ["python3", "-m", "dynamo.trtllm", "--model", "/m x"]
    ]
    assert stubs.argv_of("python3") == [["-m", "dynamo.trtllm", "--model", "/m x"]]
    assert stubs.argv_of("ls") == [[]]


def test_a_plain_command_runs_behind_the_launcher(tmp_path: Path) -> None:
    container = {"command": ["python3", "-m", "dynamo.trtllm"], "args": ["--model", "m"]}
    stubs = run_leader(tmp_path, container)
    assert stubs.argv_of("trtllm-llmapi-launch") == [
        ["python3", "-m", "dynamo.trtllm", "--model", "m"]
    ]


def test_without_a_launch_the_launcher_wraps_the_whole_script_as_upstream(tmp_path: Path) -> None:
    stubs = run_leader(tmp_path, {"command": ["sh", "-c", "ls /models"]})
    assert stubs.argv_of("trtllm-llmapi-launch") == [["ls", "/models"]]


def run_worker(tmp_path: Path) -> Stubs:
    stubs = make_stubs(tmp_path, "ssh-keygen", "sshd")
    keys = tmp_path / "ssh-pk"
    keys.mkdir()
    for name in ("private.key", "private.key.pub"):
        (keys / name).write_text("key\n")
    script = trtllm_worker_script().replace(MPI_SSH_MOUNT_PATH, str(keys))
    result = stubs.run(["/bin/sh", "-c", script.replace("/usr/sbin/sshd", "sshd")])
    assert result.returncode == 0, result.stderr
    return stubs


def test_workers_run_sshd_on_the_mpi_port_with_everything_under_home(tmp_path: Path) -> None:
    """Upstream's setupWorkerContainer config, which an sshd without root can run."""
    stubs = run_worker(tmp_path)

    config = (tmp_path / ".ssh" / "sshd_config").read_text().splitlines()
    host_keys = [f"{tmp_path}/.ssh/host_keys/ssh_host_{kind}_key" for kind in KEY_TYPES]
    assert config == [
        "Port 2222",
        *(f"HostKey {key}" for key in host_keys),
        f"PidFile {tmp_path}/.ssh/run/sshd.pid",
        "StrictModes no",
        "PermitRootLogin yes",
        "PasswordAuthentication no",
        "PubkeyAuthentication yes",
        f"AuthorizedKeysFile {tmp_path}/.ssh/authorized_keys",
    ]
    assert stubs.argv_of("ssh-keygen") == [
        ["-q", "-t", kind, "-N", "", "-f", key]
        for kind, key in zip(KEY_TYPES, host_keys, strict=True)
    ]
    assert stubs.argv_of("sshd") == [["-D", "-e", "-f", f"{tmp_path}/.ssh/sshd_config"]]
    assert (tmp_path / ".ssh" / "run").is_dir()


def test_a_restarted_worker_keeps_its_host_keys(tmp_path: Path) -> None:
    (tmp_path / ".ssh" / "host_keys").mkdir(parents=True)
    for kind in KEY_TYPES:
        (tmp_path / ".ssh" / "host_keys" / f"ssh_host_{kind}_key").write_text("old\n")

    stubs = run_worker(tmp_path)

    assert stubs.argv_of("ssh-keygen") == []
    assert len(stubs.argv_of("sshd")) == 1
