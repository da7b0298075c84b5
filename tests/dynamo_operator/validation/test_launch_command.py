from __future__ import annotations

from typing import Any

import pytest

from dynamo_operator.validation import validate_create

IMAGE = "nvcr.io/nvidia/ai-dynamo/sglang-runtime:0.7.0"


def graph(worker: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g", "namespace": "llm"},
        "spec": {"services": {"W": worker}, **spec},
    }


def worker(main: dict[str, Any] | None = None, gpus: int = 8, **spec: Any) -> dict[str, Any]:
    return {
        "componentType": "worker",
        "multinode": {"nodeCount": 2},
        "resources": {"limits": {"gpu": str(gpus)}},
        "extraPodSpec": {"mainContainer": {"image": IMAGE, **(main or {})}},
        **spec,
    }


def warnings(obj: dict[str, Any]) -> list[str]:
    result = validate_create(obj)
    assert result.errors == ()
    return [str(issue) for issue in result.warnings]


def script(text: str) -> dict[str, Any]:
    return {"command": ["/bin/sh", "-c"], "args": [text]}


def test_a_multinode_worker_of_unknown_backend_is_told_it_gets_no_wiring() -> None:
    assert warnings(graph(worker({"command": ["./serve"]}))) == [
        "spec.services.W.multinode: 2 nodes but the backend is unknown (no backendFramework, no "
        "`python3 -m dynamo.<vllm|sglang|trtllm>` in extraPodSpec.mainContainer): every pod runs "
        "the same command with no leader/worker wiring and the workers keep their probes; set "
        "backendFramework"
    ]


@pytest.mark.parametrize(
    ("main", "problem"),
    [
        (
            {"command": ["java"], "args": ["-jar", "app.jar"]},
            "no command in it runs `python3 -m dynamo.sglang`",
        ),
        (script("cd /w && ./serve.sh"), "no command in it runs `python3 -m dynamo.sglang`"),
        ({}, "it has no command or args (the image's entrypoint runs)"),
        (
            script("python3 -m dynamo.sglang --x 'unclosed"),
            "its script does not parse: unterminated single quote",
        ),
    ],
    ids=["other-program", "other-script", "entrypoint", "unparseable"],
)
def test_sglang_flags_with_no_launch_to_go_on_are_a_warning(
    main: dict[str, Any], problem: str
) -> None:
    assert warnings(graph(worker(main), backendFramework="sglang")) == [
        "spec.services.W.extraPodSpec.mainContainer: no sglang launch command to put "
        f"--dist-init-addr, --nnodes and --node-rank on: {problem}; the flags go on no command "
        "(no other program gets them)"
    ]


@pytest.mark.parametrize(
    "main",
    [
        script("cd /w && python3 -m dynamo.sglang --tp 16 > log 2>&1; ls"),
        {"args": ["python3 -m dynamo.sglang --tp 16 | tee log"]},
        {"command": ["python3", "-m", "dynamo.sglang"], "args": ["--tp", "16"]},
    ],
    ids=["script", "args-only-script", "argv"],
)
def test_a_launch_found_anywhere_in_the_script_is_no_warning(main: dict[str, Any]) -> None:
    assert warnings(graph(worker(main))) == []


def test_ray_without_a_launch_says_where_the_executor_flag_does_not_go() -> None:
    (warning,) = warnings(graph(worker(script("./serve.sh -tp 16")), backendFramework="vllm"))
    assert warning.startswith(
        "spec.services.W.extraPodSpec.mainContainer: no vllm launch command to put "
        "--distributed-executor-backend ray on: no command in it runs `python3 -m dynamo.vllm`"
    )


def test_data_parallelism_without_a_launch_is_a_warning() -> None:
    main = script("./serve.sh -tp 2 --data-parallel-size 8")
    (warning,) = warnings(graph(worker(main), backendFramework="vllm"))
    assert "to put the data-parallel flags on" in warning


def test_vllm_with_nothing_spanning_the_pods_is_told_each_pod_runs_its_own_engine() -> None:
    main = {"command": ["python3", "-m", "dynamo.vllm"], "args": ["-tp", "4"]}
    assert warnings(graph(worker(main))) == [
        "spec.services.W.multinode: vLLM on 2 pods with tensor x pipeline parallelism within one "
        "pod's 8 GPUs and no --data-parallel-size: as upstream, no multinode flags are added, so "
        "each pod runs an engine of its own; give --data-parallel-size (data parallelism across "
        "the pods) or a tensor x pipeline size above 8 (Ray)"
    ]


def test_vllm_without_a_gpu_count_is_told_no_flags_are_added() -> None:
    main = {"command": ["python3", "-m", "dynamo.vllm"], "args": ["-tp", "16"]}
    spec = worker(main)
    del spec["resources"]
    (warning,) = warnings(graph(spec))
    assert warning.startswith("spec.services.W.resources: no GPU count")


@pytest.mark.parametrize(
    "args",
    [["-tp", "16"], ["-tp", "2", "--data-parallel-size", "8"]],
    ids=["ray", "data-parallel"],
)
def test_vllm_wired_across_the_pods_is_no_warning(args: list[str]) -> None:
    main = {"command": ["python3", "-m", "dynamo.vllm"], "args": args}
    assert warnings(graph(worker(main))) == []


def test_trtllm_without_a_launch_is_told_the_launcher_wraps_the_whole_script() -> None:
    (warning,) = warnings(graph(worker(script("./serve.sh")), backendFramework="trtllm"))
    assert warning.endswith("it goes in front of the whole script, as upstream's operator puts it")


@pytest.mark.parametrize(
    "service",
    [
        worker({"command": ["java"]}, multinode=None),
        {**worker({"command": ["java"]}), "componentType": "frontend"},
    ],
    ids=["single-node", "frontend"],
)
def test_only_multinode_workers_are_checked(service: dict[str, Any]) -> None:
    assert warnings(graph(service, backendFramework="sglang")) == []


def test_a_component_deployment_is_checked_at_its_spec() -> None:
    dcd = {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoComponentDeployment",
        "metadata": {"name": "w", "namespace": "llm"},
        "spec": {"backendFramework": "sglang", **worker({"command": ["java"]})},
    }
    (warning,) = warnings(dcd)
    assert warning.startswith("spec.extraPodSpec.mainContainer: no sglang launch command")
