from __future__ import annotations

import pytest

from dynamo_operator.builders.launch_commands import flag_value, int_flag, user_script


@pytest.mark.parametrize(
    ("container", "script"),
    [
        (
            {"command": ["python3", "-m", "dynamo.vllm"], "args": ["--model", "a b"]},
            "python3 -m dynamo.vllm --model 'a b'",
        ),
        (
            {"command": ["/bin/sh", "-c"], "args": ["cd /w && python3 x.py"]},
            "cd /w && python3 x.py",
        ),
        ({"command": ["bash", "-c", "python3 x.py"]}, "python3 x.py"),
        ({"command": ["sh"], "args": ["-c", "echo hi"]}, "echo hi"),
        ({}, ""),
    ],
)
def test_user_script_unwraps_shell_commands_instead_of_nesting(
    container: dict[str, list[str]], script: str
) -> None:
    assert user_script(container) == script


def test_flag_values_in_both_spellings() -> None:
    script = "python3 -m dynamo.vllm --tensor-parallel-size 4 --pipeline-parallel-size=2"
    assert flag_value(script, "--tensor-parallel-size") == "4"
    assert flag_value(script, "--pipeline-parallel-size") == "2"
    assert flag_value(script, "--data-parallel-size") is None


def test_int_flag_falls_back_on_missing_or_non_numeric_values() -> None:
    assert int_flag("run -tp 8", "--tensor-parallel-size", "-tp") == 8
    assert int_flag("run --tensor-parallel-size $TP", "--tensor-parallel-size") == 1
    assert int_flag("run", "--data-parallel-size", default=0) == 0
