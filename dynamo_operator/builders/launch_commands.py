"""Multinode launch commands per backend: which command of the user's script gets the flags.

The user's command and args are read as one shell script (``container_script``): an existing
``sh -c "<script>" [$0 args...]`` is kept as that shell with its script and positional arguments,
never nested (upstream produced ``... && /bin/sh -c python ...``, ai-dynamo/dynamo#5719); an argv
(``[python3, -m, dynamo.sglang, ...]``) becomes the script of ``/bin/sh -c``. The flags go on the
engine's launch (``find_launch``): a simple command running a Python interpreter (upstream's test,
``(.*/)?python[0-9]*(.[0-9]+)*``) with ``-m dynamo.<backend>`` or the engine's own module
(``<backend>``, ``<backend>.*``, as upstream's pattern also matches), maybe behind ``exec``,
``env``, ``nohup`` or ``time``, after its last word and before whatever follows it (pipes, ``&&``,
``;``, redirections). Every such command gets them; any other program gets none.

LeaderWorkerSet injects ``LWS_LEADER_ADDRESS`` (``<lws>-<group>.<lws>.<namespace>``) and
``LWS_WORKER_INDEX`` (0 for the leader) into every pod; the scripts read them as shell variables.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from dynamo_operator.builders.errors import ShellSyntaxError
from dynamo_operator.builders.shell_script import SimpleCommand, insert_at, simple_commands
from dynamo_operator.constants import Ports

LEADER = "${LWS_LEADER_ADDRESS}"
WORKER_INDEX = "${LWS_WORKER_INDEX}"
DEFAULT_SHELL = ("/bin/sh", "-c")
RAY_EXECUTOR_FLAGS = "--distributed-executor-backend ray"
_SHELLS = frozenset({"sh", "bash", "dash", "ash", "zsh"})
_PYTHON = re.compile(r"(?:.*/)?python[0-9]*(?:\.[0-9]+)*")
_PYTHON_OPTIONS_WITH_VALUE = frozenset("XW")
_WRAPPERS = {"exec": "a", "env": "uCS", "nohup": "", "time": ""}
"""Programs that run the command after them, with their options that take a value."""

VllmMode = Literal["ray", "data-parallel"]


@dataclass(frozen=True, slots=True)
class ContainerScript:
    shell: tuple[str, ...]
    """The shell and options that run the script: the user's own, else ``/bin/sh -c``."""
    script: str
    positional: tuple[str, ...] = ()
    """Words after ``sh -c <script>``: the script's ``$0``, ``$1``..."""

    def fields(self, script: str) -> tuple[list[str], list[str]]:
        """``command`` and ``args`` running ``script`` in place of this one."""
        return list(self.shell), [script, *self.positional]


def container_script(container: Mapping[str, Any]) -> ContainerScript:
    """The container's command and args as one shell script (empty when it has neither)."""
    words = [
        str(word) for word in [*(container.get("command") or ()), *(container.get("args") or ())]
    ]
    if words and posixpath.basename(words[0]) in _SHELLS:
        at, runs_script = 1, False
        while at < len(words) and words[at][:1] in "-+" and len(words[at]) > 1:
            option = words[at]
            at += 1
            if option == "--":
                break
            if not option.startswith("--"):
                runs_script |= option[0] == "-" and "c" in option
                at += option.endswith("o")  # -o/+o name a shell option
        if runs_script:
            return ContainerScript(
                tuple(words[:at]), "".join(words[at : at + 1]), (*words[at + 1 :],)
            )
    return ContainerScript(DEFAULT_SHELL, shlex.join(words))


@dataclass(frozen=True, slots=True)
class Launch:
    """The engine's launch commands found in a container's script, or why none was."""

    script: ContainerScript
    commands: tuple[SimpleCommand, ...]
    words: tuple[str, ...]
    """Words the parallelism flags are read from: the first launch's, else the whole script's."""
    problem: str = ""

    def with_flags(self, flags: str) -> str:
        """The script with ``flags`` after the last word of every launch command."""
        return insert_at(
            self.script.script, (command.end for command in self.commands), f" {flags}"
        )

    def prefixed(self, prefix: str) -> str:
        """The script with ``prefix`` before the interpreter of every launch command."""
        starts = (command.starts[_program_index(command.words)] for command in self.commands)
        return insert_at(self.script.script, starts, f"{prefix} ")


def find_launch(container: Mapping[str, Any], backend: str) -> Launch:
    script = container_script(container)
    if not script.script.strip():
        return Launch(script, (), (), "it has no command or args (the image's entrypoint runs)")
    try:
        commands = simple_commands(script.script)
    except ShellSyntaxError as error:
        return Launch(
            script, (), tuple(script.script.split()), f"its script does not parse: {error}"
        )
    launches = tuple(command for command in commands if launches_backend(command.words, backend))
    if launches:
        return Launch(script, launches, launches[0].words)
    words = tuple(word for command in commands for word in command.words)
    return Launch(script, (), words, f"no command in it runs `python3 -m dynamo.{backend}`")


def _program_index(words: Sequence[str]) -> int:
    """Index of the program a simple command runs, past ``exec``/``env``/``nohup``/``time``."""
    at = 0
    while at < len(words) and words[at] in _WRAPPERS:
        valued = _WRAPPERS[words[at]]
        at += 1
        while at < len(words) and (words[at].startswith("-") or "=" in words[at]):
            at += 1 + (len(words[at]) == 2 and words[at][1:] in valued)
    return at


def launches_backend(words: Sequence[str], backend: str) -> bool:
    """Whether a simple command runs ``python -m dynamo.<backend>`` (or the engine's module)."""
    at = _program_index(words)
    if not backend or at >= len(words) or not _PYTHON.fullmatch(words[at]):
        return False
    module = _module(words[at + 1 :])
    return module is not None and any(
        module == name or module.startswith(f"{name}.") for name in (f"dynamo.{backend}", backend)
    )


def _module(options: Sequence[str]) -> str | None:
    """The module of ``python [options] -m <module>``; None when it runs a script or ``-c``."""
    at = 0
    while at < len(options) and options[at].startswith("-") and options[at] != "-":
        option = options[at]
        at += 1
        if option.startswith("--"):
            at += option == "--check-hash-based-pycs"
            continue
        for index, letter in enumerate(option[1:], start=1):
            if letter == "c":
                return None
            if letter == "m" or letter in _PYTHON_OPTIONS_WITH_VALUE:
                value = option[index + 1 :]
                if not value:
                    value = options[at] if at < len(options) else ""
                    at += 1
                if letter == "m":
                    return value
                break
    return None


def flag_value(words: Sequence[str], *flags: str) -> str | None:
    """The value of the first of ``flags`` among ``words`` (``--flag N`` or ``--flag=N``)."""
    for index, word in enumerate(words):
        for flag in flags:
            if word == flag and index + 1 < len(words):
                return words[index + 1]
            if word.startswith(flag + "="):
                return word[len(flag) + 1 :]
    return None


def int_flag(words: Sequence[str], *flags: str, default: int = 1) -> int:
    value = flag_value(words, *flags)
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


def vllm_model_parallel_size(words: Sequence[str]) -> int:
    # vLLM refuses sizes below 1 at start-up; reading them as 1 keeps the arithmetic defined.
    return max(int_flag(words, "--tensor-parallel-size", "-tp"), 1) * max(
        int_flag(words, "--pipeline-parallel-size", "-pp"), 1
    )


def vllm_multinode_mode(words: Sequence[str], gpus: int) -> VllmMode | None:
    """How a multinode vLLM group spans its nodes, as upstream's ``backend_vllm.go`` decides:
    Ray when tensor x pipeline parallelism exceeds one pod's GPUs; hybrid data parallelism when
    ``--data-parallel-size`` times that does; else nothing (each pod runs an engine of its own).
    Without GPUs nothing either."""
    if gpus <= 0:
        return None
    model_parallel = vllm_model_parallel_size(words)
    if model_parallel > gpus:
        return "ray"
    data_parallel = max(int_flag(words, "--data-parallel-size", "-dp"), 1)
    return "data-parallel" if model_parallel * data_parallel > gpus else None


def vllm_data_parallel_flags(words: Sequence[str], gpus: int, *, is_leader: bool) -> str:
    """Hybrid data parallelism: each pod runs ``gpus // (tp x pp)`` ranks, numbered by pod index;
    ``--data-parallel-size`` is the user's (the mode needs it)."""
    local_size = max(gpus // vllm_model_parallel_size(words), 1)
    start_rank = "0" if is_leader else f"$(({local_size} * {WORKER_INDEX}))"
    return (
        f"--data-parallel-hybrid-lb --data-parallel-size-local {local_size} "
        f"--data-parallel-start-rank {start_rank} --data-parallel-address {LEADER} "
        f"--data-parallel-rpc-port {Ports.VLLM_DATA_PARALLEL_RPC}"
    )


def vllm_ray_leader_script(script: str) -> str:
    # Its own command, not `ray start && <script>`: `&&` would bind to the script's first command
    # only, and a failed head must stop the pod before any of it runs.
    return f"ray start --head --port={Ports.RAY_HEAD} || exit 1; {script}"


def vllm_ray_worker_script() -> str:
    # Wait for the head instead of racing it (ai-dynamo/dynamo#14108).
    address = f"{LEADER}:{Ports.RAY_HEAD}"
    return (
        f"until ray health-check --address={address} >/dev/null 2>&1; do "
        f'echo "waiting for the Ray head at {address}"; sleep 5; done; '
        f"exec ray start --address={address} --block"
    )


def sglang_flags(*, node_count: int, is_leader: bool) -> str:
    rank = "0" if is_leader else WORKER_INDEX
    return (
        f"--dist-init-addr {LEADER}:{Ports.SGLANG_DIST_INIT} "
        f"--nnodes {node_count} --node-rank {rank}"
    )
