from __future__ import annotations

from typing import Any

import pytest

from dynamo_operator.builders.launch_commands import (
    ContainerScript,
    container_script,
    find_launch,
    int_flag,
    launches_backend,
    vllm_multinode_mode,
)


@pytest.mark.parametrize(
    ("container", "expected"),
    [
        (
            {"command": ["python3", "-m", "dynamo.vllm"], "args": ["--model", "a b"]},
            ContainerScript(("/bin/sh", "-c"), "python3 -m dynamo.vllm --model 'a b'"),
        ),
        (
            {"command": ["/bin/sh", "-c"], "args": ["cd /w && python3 x.py"]},
            ContainerScript(("/bin/sh", "-c"), "cd /w && python3 x.py"),
        ),
        ({"command": ["bash", "-lc", "run"]}, ContainerScript(("bash", "-lc"), "run")),
        ({"command": ["sh"], "args": ["-c", "echo hi"]}, ContainerScript(("sh", "-c"), "echo hi")),
        (
            {"command": ["sh", "-c"], "args": ['run "$@"', "--", "a", "b"]},
            ContainerScript(("sh", "-c"), 'run "$@"', ("--", "a", "b")),
        ),
        (
            {"command": ["bash", "--norc", "-o", "pipefail", "-c", "a | b"]},
            ContainerScript(("bash", "--norc", "-o", "pipefail", "-c"), "a | b"),
        ),
        ({"command": ["bash", "run.sh"]}, ContainerScript(("/bin/sh", "-c"), "bash run.sh")),
        ({}, ContainerScript(("/bin/sh", "-c"), "")),
    ],
)
def test_a_container_is_read_as_one_script_run_by_its_own_shell(
    container: dict[str, list[str]], expected: ContainerScript
) -> None:
    """An existing ``sh -c`` is kept, never nested in another (upstream #5719)."""
    assert container_script(container) == expected


@pytest.mark.parametrize(
    "interpreter",
    [
        "python",
        "python3",
        "python2",
        "python3.11",
        "python3.12.1",
        "/usr/bin/python3.8",
        "/home/user/.pyenv/shims/python3.9",
        "./python3",
        "../bin/python",
        "bin/python3.10",
    ],
)
def test_python_interpreters_upstream_recognises(interpreter: str) -> None:
    """Upstream's TestIsPythonCommand, the cases that are interpreters."""
    assert launches_backend([interpreter, "-m", "dynamo.sglang"], "sglang")


@pytest.mark.parametrize(
    "program", ["java", "sh", "node", "python-config", "/usr/bin/python-config", "pythonx", ""]
)
def test_programs_upstream_does_not_take_for_python(program: str) -> None:
    """Upstream's TestIsPythonCommand, the invalid cases."""
    assert not launches_backend([program, "-m", "dynamo.sglang"], "sglang")


@pytest.mark.parametrize(
    "words",
    [
        "python3 -u -m dynamo.sglang",
        "python3 -X dev -W ignore -m dynamo.sglang",
        "python3 -um dynamo.sglang",
        "python3 -mdynamo.sglang",
        "python3 -m dynamo.sglang.worker",
        "python3 -m sglang.launch_server",
        "exec python3 -m dynamo.sglang",
        "env -u HOME A=1 nohup python3 -m dynamo.sglang",
        "time -p python3 -m dynamo.sglang",
    ],
)
def test_launches_behind_options_and_wrappers(words: str) -> None:
    assert launches_backend(words.split(), "sglang")


@pytest.mark.parametrize(
    "words",
    [
        "python3 -m dynamo.vllm",
        "python3 -m dynamo.sglangx",
        "python3 -c import dynamo.sglang",
        "python3 launch.py -m dynamo.sglang",
        "python3 -X -m dynamo.sglang",
        "echo python3 -m dynamo.sglang",
        "python3",
    ],
)
def test_other_commands_are_not_launches(words: str) -> None:
    assert not launches_backend(words.split(), "sglang")


def test_every_launch_of_the_backend_gets_the_flags_and_no_other_command() -> None:
    container = {
        "command": ["sh", "-c"],
        "args": ["python3 -m dynamo.sglang --a || python3 -m dynamo.sglang --b; python3 x.py --c"],
    }
    assert (
        find_launch(container, "sglang").with_flags("F")
        == "python3 -m dynamo.sglang --a F || python3 -m dynamo.sglang --b F; python3 x.py --c"
    )


def test_a_prefix_goes_before_the_interpreter_of_the_launch() -> None:
    container = {"command": ["sh", "-c", "cd /w && A=1 exec python3 -m dynamo.trtllm --x; ls"]}
    assert (
        find_launch(container, "trtllm").prefixed("launcher")
        == "cd /w && A=1 exec launcher python3 -m dynamo.trtllm --x; ls"
    )


@pytest.mark.parametrize(
    ("container", "problem"),
    [
        ({}, "it has no command or args (the image's entrypoint runs)"),
        ({"args": ["--model", "m"]}, "no command in it runs `python3 -m dynamo.vllm`"),
        (
            {"command": ["sh", "-c", "python3 -m dynamo.vllm 'unclosed"]},
            "its script does not parse: unterminated single quote",
        ),
    ],
)
def test_why_no_launch_was_found(container: dict[str, Any], problem: str) -> None:
    launch = find_launch(container, "vllm")
    assert (launch.commands, launch.problem) == ((), problem)


def test_parallelism_is_read_from_the_launch_not_from_other_commands() -> None:
    script = "echo --tensor-parallel-size 16 && python3 -m dynamo.vllm -tp 2"
    launch = find_launch({"command": ["sh", "-c", script]}, "vllm")
    assert vllm_multinode_mode(launch.words, 8) is None
    unrecognised = find_launch({"command": ["sh", "-c", "run.sh -tp 16"]}, "vllm")
    assert vllm_multinode_mode(unrecognised.words, 8) == "ray"


@pytest.mark.parametrize(
    ("args", "gpus", "mode"),
    [
        ("", 8, None),
        ("--tensor-parallel-size 8", 8, None),
        ("--tensor-parallel-size 16", 8, "ray"),
        ("--tensor-parallel-size=4 --pipeline-parallel-size 4", 8, "ray"),
        ("-tp 4 -pp 4", 8, "ray"),
        ("-tp 2 --data-parallel-size 8", 8, "data-parallel"),
        ("-tp 2 -dp 4", 8, None),
        ("-tp 16", 0, None),
        ("-tp 0 --data-parallel-size 16", 8, "data-parallel"),
        ("--tensor-parallel-size $TP", 1, None),
    ],
)
def test_vllm_multinode_mode_follows_upstream(args: str, gpus: int, mode: str | None) -> None:
    """backend_vllm.go: Ray when tp x pp exceeds a pod's GPUs, data parallelism when tp x pp x dp
    does, else nothing; no GPUs, nothing."""
    assert vllm_multinode_mode(["python3", "-m", "dynamo.vllm", *args.split()], gpus) == mode


def test_int_flag_falls_back_on_missing_or_non_numeric_values() -> None:
    assert int_flag(["run", "-tp", "8"], "--tensor-parallel-size", "-tp") == 8
    assert int_flag(["run", "--tensor-parallel-size", "$TP"], "--tensor-parallel-size") == 1
    assert int_flag(["run"], "--data-parallel-size", default=0) == 0
