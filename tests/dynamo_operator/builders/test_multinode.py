from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dynamo_operator.builders.container import build_main_container
from dynamo_operator.builders.multinode import Role
from dynamo_operator.builders.volumes import PersistentVolumeMounts

from .factories import IMAGE, component, context, multinode_worker
from .stub_programs import LEADER_ADDRESS, make_stubs

PROBES = {"livenessProbe", "readinessProbe", "startupProbe"}
SGLANG_PROGRAMS = ("python3", "ls", "tee", "java", "date")


def container_for(backend: str, role: Role, **kwargs: Any) -> dict[str, Any]:
    worker = multinode_worker(backend, **kwargs)
    return build_main_container(
        worker, context(), PersistentVolumeMounts(), shared_memory=True, role=role
    )


def rendered(
    backend: str,
    role: Role,
    main_container: dict[str, Any],
    *,
    gpus: int = 8,
    node_count: int = 2,
) -> dict[str, Any]:
    """The main container of one role of a multinode worker launched by ``main_container``."""
    worker = component(
        componentType="worker",
        backendFramework=backend,
        multinode={"nodeCount": node_count},
        resources={"limits": {"gpu": str(gpus)}},
        extraPodSpec={"mainContainer": {"image": IMAGE, **main_container}},
    )
    return build_main_container(
        worker, context(), PersistentVolumeMounts(), shared_memory=True, role=role
    )


def pod_command(container: dict[str, Any]) -> list[str]:
    return [*container["command"], *container.get("args", [])]


def sglang_flags(rank: str, nodes: int = 2) -> list[str]:
    return [
        "--dist-init-addr",
        f"{LEADER_ADDRESS}:29500",
        "--nnodes",
        str(nodes),
        "--node-rank",
        rank,
    ]


@pytest.mark.parametrize("backend", ["vllm", "sglang"])
def test_vllm_and_sglang_workers_lose_every_probe_and_leaders_keep_them(backend: str) -> None:
    assert PROBES.isdisjoint(container_for(backend, "worker"))
    assert set(container_for(backend, "leader")) >= PROBES


def test_trtllm_worker_keeps_only_a_tcp_readiness_probe_on_the_ssh_port() -> None:
    worker = container_for("trtllm", "worker")
    assert "livenessProbe" not in worker
    assert "startupProbe" not in worker
    assert worker["readinessProbe"] == {
        "tcpSocket": {"port": 2222},
        "initialDelaySeconds": 20,
        "periodSeconds": 20,
        "timeoutSeconds": 5,
        "failureThreshold": 10,
    }
    assert set(container_for("trtllm", "leader")) >= PROBES


@pytest.mark.parametrize("role", ["leader", "worker"])
def test_trtllm_pods_keep_fqdn_hostnames_and_mount_the_ssh_key(role: Role) -> None:
    container = container_for("trtllm", role)
    env = {entry["name"]: entry.get("value") for entry in container["env"]}
    assert env["OMPI_MCA_orte_keep_fqdn_hostnames"] == "1"
    mounts = {mount["mountPath"] for mount in container["volumeMounts"]}
    assert "/ssh-pk" in mounts


def test_trtllm_leader_launches_mpirun_across_every_gpu_of_the_group() -> None:
    leader = container_for("trtllm", "leader", gpus=4, node_count=3)
    (script,) = leader["args"]
    assert "mpirun" in script
    assert "-n 12" in script
    assert "trtllm-llmapi-launch python3 -m dynamo.trtllm" in script


def test_user_probes_do_not_survive_the_multinode_worker_rule() -> None:
    worker = component(
        componentType="worker",
        backendFramework="vllm",
        multinode={"nodeCount": 2},
        livenessProbe={"exec": {"command": ["true"]}},
    )
    container = build_main_container(
        worker, context(), PersistentVolumeMounts(), shared_memory=True, role="worker"
    )
    assert PROBES.isdisjoint(container)


def test_non_worker_types_are_identical_in_every_role() -> None:
    frontend = component(
        componentType="frontend", backendFramework="vllm", multinode={"nodeCount": 2}
    )
    built = {
        role: build_main_container(
            frontend, context(), PersistentVolumeMounts(), shared_memory=True, role=role
        )
        for role in ("leader", "worker")
    }
    assert built["leader"] == built["worker"]


# The pods' commands, run under their shell with stub programs that record what they received.


def test_sglang_leader_and_workers_launch_with_their_rank(tmp_path: Path) -> None:
    """Upstream's backend_sglang_test.go "python command LWS leader/worker - direct append"."""
    main = {"command": ["python3", "-m", "dynamo.sglang"], "args": ["--model-path", "m"]}
    stubs = make_stubs(tmp_path, "python3")
    stubs.run(pod_command(rendered("sglang", "leader", main, node_count=3)))
    stubs.run(pod_command(rendered("sglang", "worker", main, node_count=3)), worker_index=2)
    user = ["-m", "dynamo.sglang", "--model-path", "m"]
    assert stubs.argv_of("python3") == [
        user + sglang_flags("0", nodes=3),
        user + sglang_flags("2", nodes=3),
    ]


SGLANG_SCRIPTS = {
    # script -> (what python3 gets after the user's own arguments, the other programs' argv)
    "and-list": ("python3 -m dynamo.sglang --tp 8 && ls -al", {"ls": [["-al"]]}),
    "sequence": ("python3 -m dynamo.sglang --tp 8; ls -al", {"ls": [["-al"]]}),
    "pipe": ("python3 -m dynamo.sglang --tp 8 2>&1 | tee out.log", {"tee": [["out.log"]]}),
    "redirect": ("python3 -m dynamo.sglang --tp 8 > out.log 2>&1 && ls", {"ls": [[]]}),
    "lines": ("cd /tmp\npython3 -m dynamo.sglang \\\n  --tp 8 # engine\nls -al", {"ls": [["-al"]]}),
    "background": ("python3 -m dynamo.sglang --tp 8 & date; wait", {"date": [[]]}),
    "or-list": ("python3 -m dynamo.sglang --tp 8 || ls", {}),
    "pipe-before": ("date | tee a.log && exec python3 -m dynamo.sglang --tp 8", {"date": [[]]}),
}


@pytest.mark.parametrize("case", SGLANG_SCRIPTS, ids=str)
@pytest.mark.parametrize(("role", "rank"), [("leader", "0"), ("worker", "1")])
def test_sglang_flags_go_to_the_launch_inside_a_shell_script(
    tmp_path: Path, case: str, role: Role, rank: str
) -> None:
    """Upstream's "multinode shell command with complex pipeline" and "with pipes" cases, and
    the lists, redirections and newlines around them: python3 gets the flags, nothing else."""
    script, others = SGLANG_SCRIPTS[case]
    stubs = make_stubs(tmp_path, *SGLANG_PROGRAMS)
    container = rendered("sglang", role, {"command": ["sh", "-c"], "args": [script]})

    stubs.run(pod_command(container), worker_index=int(rank))

    assert container["command"] == ["sh", "-c"]
    assert stubs.argv_of("python3") == [["-m", "dynamo.sglang", "--tp", "8", *sglang_flags(rank)]]
    assert {name: stubs.argv_of(name) for name in others} == others


def test_quoting_and_expansions_survive_the_flags(tmp_path: Path) -> None:
    script = (
        'MODEL=/models/qwen; python3 -m dynamo.sglang --model-path "$MODEL" '
        '--served-model-name \'my model\' --tag "$(echo a b)" --json \'{"k": "v w"}\' '
        "--note it\\'s --host ${HOST:-0.0.0.0}"
    )
    stubs = make_stubs(tmp_path, "python3")

    stubs.run(pod_command(rendered("sglang", "leader", {"command": ["/bin/sh", "-c", script]})))

    assert stubs.argv_of("python3") == [
        [
            "-m",
            "dynamo.sglang",
            "--model-path",
            "/models/qwen",
            "--served-model-name",
            "my model",
            "--tag",
            "a b",
            "--json",
            '{"k": "v w"}',
            "--note",
            "it's",
            "--host",
            "0.0.0.0",
            *sglang_flags("0"),
        ]
    ]


def test_a_script_given_positional_arguments_keeps_them(tmp_path: Path) -> None:
    """``sh -c '<script>' -- args``: the words after the script are its ``$0``, ``$1``..."""
    main = {
        "command": ["sh", "-c"],
        "args": ['python3 -m dynamo.sglang "$@" && ls "$0"', "here", "--model-path", "a b"],
    }
    stubs = make_stubs(tmp_path, "python3", "ls")
    container = rendered("sglang", "worker", main)

    stubs.run(pod_command(container), worker_index=1)

    assert container["args"][1:] == ["here", "--model-path", "a b"]
    assert stubs.argv_of("python3") == [
        ["-m", "dynamo.sglang", "--model-path", "a b", *sglang_flags("1")]
    ]
    assert stubs.argv_of("ls") == [["here"]]


def test_the_users_shell_runs_the_script(tmp_path: Path) -> None:
    main = {"command": ["bash", "-c"], "args": ["[[ -n x ]] && python3 -m dynamo.sglang"]}
    stubs = make_stubs(tmp_path, "python3")
    container = rendered("sglang", "leader", main)

    stubs.run(pod_command(container))

    assert container["command"] == ["bash", "-c"]
    assert stubs.argv_of("python3") == [["-m", "dynamo.sglang", *sglang_flags("0")]]


@pytest.mark.parametrize(
    "main",
    [
        {"command": ["java"], "args": ["-jar", "app.jar"]},
        {"command": ["sh", "-c"], "args": ["python3 -m some.other.module && java -jar app.jar"]},
    ],
    ids=["argv", "script"],
)
def test_other_programs_get_no_flags(tmp_path: Path, main: dict[str, Any]) -> None:
    """Upstream's "non-python command multinode unchanged" and "shell command no sglang modules
    unchanged": the container stays as written (validation warns)."""
    stubs = make_stubs(tmp_path, "python3", "java")
    container = rendered("sglang", "worker", main)

    stubs.run(pod_command(container), worker_index=1)

    assert (container["command"], container["args"]) == (main["command"], main["args"])
    assert stubs.argv_of("java") == [["-jar", "app.jar"]]
    assert all(not set(argv) & {"--nnodes", "--node-rank"} for _, *argv in stubs.calls())


def test_vllm_ray_leader_starts_the_head_then_its_launch_gets_the_ray_executor(
    tmp_path: Path,
) -> None:
    main = {
        "command": ["sh", "-c"],
        "args": ["cd /tmp && python3 -m dynamo.vllm -tp 8 -pp 2 > vllm.log 2>&1; ls"],
    }
    stubs = make_stubs(tmp_path, "python3", "ray", "ls")
    leader = rendered("vllm", "leader", main)

    stubs.run(pod_command(leader))

    assert stubs.calls() == [
        ["ray", "start", "--head", "--port=6379"],
        [
            "python3",
            "-m",
            "dynamo.vllm",
            "-tp",
            "8",
            "-pp",
            "2",
            "--distributed-executor-backend",
            "ray",
        ],
        ["ls"],
    ]
    assert {"name": "ray-head", "containerPort": 6379, "protocol": "TCP"} in leader["ports"]


def test_a_ray_head_that_fails_stops_the_leader_before_the_engine(tmp_path: Path) -> None:
    """Even when the script has several commands (``ray start && <script>`` guards only the
    first)."""
    main = {"command": ["sh", "-c"], "args": ["cd /tmp; python3 -m dynamo.vllm -tp 16"]}
    stubs = make_stubs(tmp_path, "python3")
    stubs.add("ray", then="exit 3")

    result = stubs.run(pod_command(rendered("vllm", "leader", main)))

    assert result.returncode != 0
    assert stubs.argv_of("python3") == []


def test_vllm_ray_worker_waits_for_the_head_then_joins_it(tmp_path: Path) -> None:
    """Upstream's worker runs only ``ray start --address=<leader>:6379 --block``; ours first waits
    for the head to answer (ai-dynamo/dynamo#14108)."""
    main = {"command": ["python3", "-m", "dynamo.vllm"], "args": ["--tensor-parallel-size", "16"]}
    stubs = make_stubs(tmp_path, "python3", "ray")

    stubs.run(pod_command(rendered("vllm", "worker", main)), worker_index=1)

    address = f"--address={LEADER_ADDRESS}:6379"
    assert stubs.calls() == [["ray", "health-check", address], ["ray", "start", address, "--block"]]


def test_vllm_data_parallel_ranks_when_asked(tmp_path: Path) -> None:
    """4 pods of 8 GPUs, tensor parallelism 2, --data-parallel-size 16: 4 ranks per pod, pod i
    starting at rank 4 x i (upstream's injectDataParallelLaunchFlags)."""
    main = {
        "command": ["sh", "-c"],
        "args": ["python3 -m dynamo.vllm -tp 2 --data-parallel-size 16 | tee log"],
    }
    stubs = make_stubs(tmp_path, "python3", "tee")
    stubs.run(pod_command(rendered("vllm", "leader", main, node_count=4)))
    stubs.run(pod_command(rendered("vllm", "worker", main, node_count=4)), worker_index=3)

    def flags(start: str) -> list[str]:
        return [
            "-m",
            "dynamo.vllm",
            "-tp",
            "2",
            "--data-parallel-size",
            "16",
            "--data-parallel-hybrid-lb",
            "--data-parallel-size-local",
            "4",
            "--data-parallel-start-rank",
            start,
            "--data-parallel-address",
            LEADER_ADDRESS,
            "--data-parallel-rpc-port",
            "13445",
        ]

    assert stubs.argv_of("python3") == [flags("0"), flags("12")]
    assert stubs.argv_of("tee") == [["log"], ["log"]]


@pytest.mark.parametrize(
    "args",
    [["--model", "m"], ["--tensor-parallel-size", "4"], ["-tp", "2", "--data-parallel-size", "4"]],
    ids=["nothing", "tensor-within-one-pod", "data-parallel-within-one-pod"],
)
def test_vllm_adds_nothing_unasked(args: list[str]) -> None:
    """Upstream's backend_vllm.go: no data-parallel flags unless tp x pp x dp exceeds a pod's
    GPUs (we used to add --data-parallel-size and friends to any multinode worker)."""
    main = {"command": ["python3", "-m", "dynamo.vllm"], "args": args}
    for role in ("leader", "worker"):
        container = rendered("vllm", role, main)
        assert (container["command"], container["args"]) == (main["command"], args)


@pytest.mark.parametrize("size", ["0", "-2"])
def test_vllm_parallel_sizes_below_one_read_as_one(size: str) -> None:
    """`-tp 0` divided by zero while building the data-parallel flags."""
    args = ["-tp", size, "--pipeline-parallel-size", size, "--data-parallel-size", "16"]
    (script,) = container_for("vllm", "leader", gpus=8, node_count=2, args=args)["args"]
    assert "--data-parallel-size-local 8 " in script
    assert script.count("--data-parallel-size ") == 1
