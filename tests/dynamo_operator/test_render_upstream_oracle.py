"""Upstream's own Go unit tests as the oracle for what `render` puts in pods (issue 30, item 1).

Each YAML file under ``upstream_oracle/`` ports one upstream test function of the Go operator
(ai-dynamo/dynamo, ``deploy/operator/internal/...``): the facts it asserts, never its code. A
sub-case renders a graph or a DynamoComponentDeployment with our pure library and checks those
facts on our output, translated to our shape: the main container is ``main``, a multinode replica
is a LeaderWorkerSet ``<dcd>-<i>`` (upstream's Grove-only cases are left out; a Grove case whose
fact does not depend on Grove is checked on a LeaderWorkerSet with its leader address).

Where upstream asserts a command line, the rendered container is *run*: the kubelet's ``$(VAR)``
expansion is applied with the environment LeaderWorkerSet injects, the command runs under the real
``/bin/sh`` with stub programs (``python3``, ``ray``, ``mpirun``...) on ``PATH`` that record their
argv, and the check is on which program received which arguments. So a flag inside a shell script
must reach python, not ``ls`` after it, whatever the shape of the script. Options are compared as
``(flag, value)`` groups in any order after the program's first group (``-m module``), as argparse
reads them.

A check fails when our render differs from upstream; deliberate differences are asserted as our
README documents them and say so in the case's ``note``. The table of every upstream case
considered, ported or left out, is /work/notes/oracle-cases.md.
"""

from __future__ import annotations

import re
import subprocess
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from dynamo_operator.errors import RenderError
from dynamo_operator.render import RenderResult, render_objects
from dynamo_operator.settings import OperatorSettings
from dynamo_operator.validation import validate_create

ORACLE = Path(__file__).parent / "upstream_oracle"
NAMESPACE = "ns"
GRAPH = "g"
STUBBED = (
    "python",
    "python3",
    "python3.11",
    "ray",
    "mpirun",
    "trtllm-llmapi-launch",
    "ls",
    "tee",
    "wc",
    "cp",
    "chmod",
    "getent",
    "ssh-keygen",
    "sshd",
    "sleep",
    "java",
    "custom",
    "some",
    "launch",
    "serve",
    "original",
)
"""Programs the commands under test may call, replaced by recorders (none does real work)."""
ABSOLUTE_STUBS = {"/usr/sbin/sshd": "sshd"}
"""Absolute program paths rendered scripts call, redirected to their stub when run."""

RECORDER = """#!/bin/sh
us=$(printf '\\037')
record="${0##*/}"
for a in "$@"; do record="$record$us$a"; done
printf '%s\\036' "$record" >> "$STUB_LOG"
"""
"""Records its name and argv in one write (pipelines run their programs at the same time)."""
MKDIR = (
    RECORDER
    + """for a in "$@"; do case "$a" in "$HOME"/*) /bin/mkdir -p "$a";; esac; done
"""
)
"""mkdir only creates directories under the sandbox HOME (the tests run as root)."""


# -- cases -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OracleCase:
    source: str
    """Path of the YAML file, relative to upstream_oracle/."""
    upstream_file: str
    upstream_test: str
    name: str
    """The upstream sub-case name (t.Run), or the test name for a test without sub-cases."""
    spec: Mapping[str, Any]

    @property
    def id(self) -> str:
        slug = re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-")
        return f"{Path(self.source).with_suffix('')}::{slug}"


def _load_cases() -> list[OracleCase]:
    cases = []
    for path in sorted(ORACLE.rglob("*.yaml")):
        data = yaml.safe_load(path.read_text())
        upstream = data["upstream"]
        for spec in data["cases"]:
            cases.append(
                OracleCase(
                    source=str(path.relative_to(ORACLE)),
                    upstream_file=upstream["file"],
                    upstream_test=spec.get("test", upstream.get("test", "")),
                    name=spec["case"],
                    spec=spec,
                )
            )
    return cases


CASES = _load_cases()


def _documents(spec: Mapping[str, Any]) -> list[dict[str, Any]]:
    documents: list[dict[str, Any]] = list(spec.get("documents") or [])
    if "graph" in spec:
        metadata = {"name": GRAPH, "namespace": NAMESPACE, **(spec.get("graph_metadata") or {})}
        documents.insert(
            0,
            {
                "apiVersion": "nvidia.com/v1alpha1",
                "kind": "DynamoGraphDeployment",
                "metadata": metadata,
                "spec": spec["graph"],
            },
        )
    if "dcd" in spec:
        dcd = spec["dcd"]
        metadata = {"name": dcd["name"], "namespace": NAMESPACE, **(dcd.get("metadata") or {})}
        documents.append(
            {
                "apiVersion": "nvidia.com/v1alpha1",
                "kind": "DynamoComponentDeployment",
                "metadata": metadata,
                "spec": dcd["spec"],
            }
        )
    return documents


# -- running a rendered container ---------------------------------------------------------------


@dataclass
class Sandbox:
    root: Path

    @property
    def stubs(self) -> Path:
        return self.root / "stubs"

    @property
    def home(self) -> Path:
        return self.root / "home"

    def prepare(self) -> None:
        self.stubs.mkdir(parents=True, exist_ok=True)
        self.home.mkdir(parents=True, exist_ok=True)
        for name in STUBBED:
            self.add_stub(self.stubs / name)
        self.add_stub(self.stubs / "mkdir", MKDIR)

    def add_stub(self, path: Path, text: str = RECORDER) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(0o755)

    def substitute(self, value: Any) -> Any:
        """``@STUBS@/path`` in an input names a stub at that path (an absolute interpreter)."""
        if isinstance(value, str):
            for match in re.findall(r"@STUBS@(/\S+)", value):
                self.add_stub(Path(str(self.stubs) + match))
            return value.replace("@STUBS@", str(self.stubs))
        if isinstance(value, list):
            return [self.substitute(item) for item in value]
        if isinstance(value, dict):
            return {key: self.substitute(item) for key, item in value.items()}
        return value


@dataclass(frozen=True)
class Call:
    program: str
    argv: tuple[str, ...]


@dataclass
class PodRun:
    """What the pod's main container ran: every stubbed call, in order."""

    calls: list[Call] = field(default_factory=list)
    returncode: int = 0
    output: str = ""

    def of(self, program: str) -> list[Call]:
        return [call for call in self.calls if call.program == program]


def kubelet_expand(text: str, env: Mapping[str, str]) -> str:
    """The kubelet's ``$(VAR)`` expansion of command and args (``$$`` escapes a ``$``)."""
    out, index = [], 0
    while index < len(text):
        if text.startswith("$$", index):
            out.append("$")
            index += 2
        elif text.startswith("$(", index) and (end := text.find(")", index)) > 0:
            name = text[index + 2 : end]
            out.append(env[name] if name in env else text[index : end + 1])
            index = end + 1
        else:
            out.append(text[index])
            index += 1
    return "".join(out)


def expand_lws_variables(text: str, env: Mapping[str, str]) -> str:
    """Shell references to the LeaderWorkerSet variables, resolved (to compare script text)."""
    for name in ("LWS_LEADER_ADDRESS", "LWS_WORKER_INDEX", "LWS_GROUP_SIZE"):
        if name in env:
            text = re.sub(r"\$\{" + name + r"\}|\$" + name + r"\b", env[name], text)
    return text


def _read_calls(log: Path) -> list[Call]:
    if not log.exists():
        return []
    records = [record for record in log.read_text().split("\x1e") if record]
    return [Call(parts[0], tuple(parts[1:])) for parts in (r.split("\x1f") for r in records)]


def run_container(container: Mapping[str, Any], env: Mapping[str, str], box: Sandbox) -> PodRun:
    argv = [kubelet_expand(str(word), env) for word in container.get("command") or ()]
    argv += [kubelet_expand(str(word), env) for word in container.get("args") or ()]
    if not container.get("command"):
        raise AssertionError(f"no command: the image's entrypoint would get {argv!r}")
    for path, stub in ABSOLUTE_STUBS.items():
        argv = [word.replace(path, str(box.stubs / stub)) for word in argv]
    log = box.root / "calls.log"
    log.unlink(missing_ok=True)
    process_env = {
        **env,
        "PATH": f"{box.stubs}:/usr/bin:/bin",
        "HOME": str(box.home),
        "STUB_LOG": str(log),
    }
    try:
        done = subprocess.run(
            argv,
            env=process_env,
            cwd=box.home,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except FileNotFoundError as error:
        raise AssertionError(f"cannot run {argv!r}: {error}") from error
    return PodRun(_read_calls(log), done.returncode, done.stdout + done.stderr)


def option_groups(
    argv: tuple[str, ...] | list[str],
) -> tuple[tuple[str, ...], Counter[tuple[str, ...]]]:
    """The program's first group (``-m module`` or leading words) and its other option groups."""
    groups: list[list[str]] = []
    for word in argv:
        is_flag = word.startswith("-") and not re.fullmatch(r"-\d+(\.\d+)?", word)
        if is_flag and "=" in word and word.startswith("--"):
            flag, value = word.split("=", 1)
            groups.append([flag, value])
        elif is_flag or not groups:
            groups.append([word])
        else:
            groups[-1].append(word)
    if not groups:
        return (), Counter()
    head, *rest = groups
    return tuple(head), Counter(tuple(group) for group in rest)


# -- selecting what a check looks at ------------------------------------------------------------


@dataclass
class Rendered:
    result: RenderResult

    def find(self, kind: str, name: str) -> dict[str, Any] | None:
        for obj in self.result.objects:
            if obj["kind"] == kind and obj["metadata"]["name"] == name:
                return obj
        return None

    def get(self, kind: str, name: str) -> dict[str, Any]:
        found = self.find(kind, name)
        if found is None:
            names = [f"{o['kind']}/{o['metadata']['name']}" for o in self.result.objects]
            raise AssertionError(f"no {kind}/{name} rendered; rendered: {names}")
        return found


@dataclass
class Pod:
    workload: dict[str, Any]
    template: dict[str, Any]
    role: str
    """``main`` (a Deployment's pod), ``leader`` or ``worker`` (a LeaderWorkerSet's)."""

    @property
    def container(self) -> dict[str, Any]:
        containers = self.template["spec"]["containers"]
        return next(c for c in containers if c.get("name") == "main")

    @property
    def leader_address(self) -> str:
        name = self.workload["metadata"]["name"]
        return f"{name}-0.{name}.{self.workload['metadata']['namespace']}"

    def placeholders(self, box: Sandbox) -> dict[str, str]:
        values = {"HOME": str(box.home), "STUBS": str(box.stubs)}
        if self.workload["kind"] == "LeaderWorkerSet":
            name, namespace = self.workload["metadata"]["name"], NAMESPACE
            values["LEADER"] = self.leader_address
            values["WORKER_INDEX"] = "0" if self.role == "leader" else "1"
            for index in range(1, 8):
                values[f"WORKER{index}"] = f"{name}-0-{index}.{name}.{namespace}"
        return values

    def environment(self) -> dict[str, str]:
        """The container's environment as the kubelet and LeaderWorkerSet would set it."""
        name = self.workload["metadata"]["name"]
        fields = {
            "metadata.name": f"{name}-0" if self.role != "worker" else f"{name}-0-1",
            "metadata.namespace": NAMESPACE,
            "metadata.uid": "uid-1",
            "status.podIP": "10.0.0.7",
        }
        env: dict[str, str] = {}
        if self.workload["kind"] == "LeaderWorkerSet":
            size = self.workload["spec"]["leaderWorkerTemplate"]["size"]
            env["LWS_LEADER_ADDRESS"] = self.leader_address
            env["LWS_GROUP_SIZE"] = str(size)
            env["LWS_WORKER_INDEX"] = "0" if self.role == "leader" else "1"
        for entry in self.container.get("env") or ():
            if "value" in entry:
                env[entry["name"]] = kubelet_expand(str(entry["value"]), env)
            elif (ref := (entry.get("valueFrom") or {}).get("fieldRef")) is not None:
                env[entry["name"]] = fields.get(ref["fieldPath"], "")
        return env


def select_pod(rendered: Rendered, selector: str) -> Pod:
    name, _, role = selector.partition(":")
    if role:
        lws = rendered.get("LeaderWorkerSet", name)
        key = "leaderTemplate" if role == "leader" else "workerTemplate"
        return Pod(lws, lws["spec"]["leaderWorkerTemplate"][key], role)
    deployment = rendered.get("Deployment", name)
    return Pod(deployment, deployment["spec"]["template"], "main")


# -- assertions ---------------------------------------------------------------------------------

MISSING = object()


class Findings(list[str]):
    """What differs from upstream in one case: every check runs, all differences are reported."""

    def expect(self, holds: bool, message: str) -> None:
        if not holds:
            self.append(message)


def fill(value: Any, values: Mapping[str, str]) -> Any:
    """Replace ``@NAME@`` placeholders (``@LEADER@``, ``@HOME@``...) in an expected value."""
    if isinstance(value, str):
        return re.sub(r"@([A-Z0-9_]+)@", lambda m: values.get(m.group(1), m.group(0)), value)
    if isinstance(value, list):
        return [fill(item, values) for item in value]
    if isinstance(value, dict):
        return {key: fill(item, values) for key, item in value.items()}
    return value


def resolve(root: Any, path: str) -> Any:
    """The value at a dotted path (``\\.`` for a dot inside a key: ``limits.nvidia\\.com/gpu``)."""
    node = root
    for part in (p.replace("\\.", ".") for p in re.split(r"(?<!\\)\.", path)):
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return MISSING
    return node


def contains(actual: Any, expected: Any) -> bool:
    """``expected`` is in ``actual``: a dict's keys recursively, a list's items in any order."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            key in actual and contains(actual[key], value) for key, value in expected.items()
        )
    if isinstance(expected, list):
        return isinstance(actual, list) and all(
            any(contains(item, wanted) for item in actual) for wanted in expected
        )
    return bool(actual == expected)


def check_paths(
    root: Any, check: Mapping[str, Any], values: Mapping[str, str], found: Findings
) -> None:
    for path, expected in (check.get("equals") or {}).items():
        actual, wanted = resolve(root, path), fill(expected, values)
        found.expect(actual == wanted, f"{path}: {_show(actual)} != {wanted!r}")
    for path, expected in (check.get("contains") or {}).items():
        actual, wanted = resolve(root, path), fill(expected, values)
        found.expect(contains(actual, wanted), f"{path}: {_show(actual)} lacks {wanted!r}")
    for path, unwanted in (check.get("not_equals") or {}).items():
        actual = resolve(root, path)
        found.expect(actual != fill(unwanted, values), f"{path}: want other than {actual!r}")
    for path, spec in (check.get("count_of") or {}).items():
        actual, wanted = resolve(root, path), fill(spec["match"], values)
        matching = (
            [item for item in actual if contains(item, wanted)] if isinstance(actual, list) else []
        )
        found.expect(
            len(matching) == spec["count"],
            f"{path}: {len(matching)} item(s) match {wanted!r}, want {spec['count']}: "
            + _show(actual),
        )
    for path, unwanted in (check.get("lacks") or {}).items():
        actual = resolve(root, path)
        for item in fill(unwanted, values):
            found.expect(not contains(actual, [item]), f"{path}: {item!r} present")
    for path, length in (check.get("lengths") or {}).items():
        actual = resolve(root, path)
        found.expect(
            isinstance(actual, list) and len(actual) == length,
            f"{path}: want {length} item(s), got {_show(actual)}",
        )
    for path in check.get("absent") or ():
        actual = resolve(root, path)
        found.expect(actual is MISSING, f"{path}: want absent, got {actual!r}")


def _show(value: Any) -> str:
    return "missing" if value is MISSING else repr(value)


def check_env(container: Mapping[str, Any], expected: Mapping[str, Any], found: Findings) -> None:
    entries = {entry["name"]: entry for entry in container.get("env") or ()}
    for name, want in expected.items():
        entry = entries.get(name)
        if want is None:
            found.expect(entry is None, f"env {name}: want absent, got {entry}")
        elif isinstance(want, dict):
            found.expect(contains(entry, want), f"env {name}: {entry} lacks {want}")
        else:
            got = (entry or {}).get("value", "missing")
            found.expect(got == str(want), f"env {name}: {got!r} != {str(want)!r}")


def check_runs(run: PodRun, expected: Any, values: Mapping[str, str], found: Findings) -> None:
    for want in expected if isinstance(expected, list) else [expected]:
        program, argv = want["program"], [str(word) for word in fill(want["argv"], values)]
        calls = run.of(program)
        if want.get("exact"):
            ok = any(list(call.argv) == argv for call in calls)
        elif want.get("head"):
            ok = any(option_groups(call.argv)[0] == tuple(argv) for call in calls)
        else:
            ok = any(option_groups(call.argv) == option_groups(argv) for call in calls)
        found.expect(
            ok,
            f"no {program} call with {argv!r}; {program} got {[list(c.argv) for c in calls]!r}"
            + ("" if calls else f"; calls: {[(c.program, *c.argv) for c in run.calls]!r}")
            + (f"; output: {run.output.strip()[-300:]}" if run.returncode else ""),
        )


def mpirun_options(argv: tuple[str, ...]) -> dict[str, Any]:
    """The parts of an ``mpirun`` command line upstream asserts on."""
    options: dict[str, Any] = {"forwards": [], "mca": []}
    words = list(argv)
    for index, word in enumerate(words[:-1]):
        if word in ("-n", "-np"):
            options["n"] = int(words[index + 1])
        elif word in ("-H", "--host"):
            # A host may carry its slot count (host:slots); the host set is the fact.
            options["hosts"] = [host.split(":")[0] for host in words[index + 1].split(",")]
        elif word == "-x":
            options["forwards"].append(words[index + 1])
        elif word == "--mca" and index + 2 < len(words):
            options["mca"].append([words[index + 1], words[index + 2]])
        elif word == "bash" and words[index + 1] == "-c" and index + 2 < len(words):
            options["launch_script"] = words[index + 2]
    return options


def check_mpirun(
    run: PodRun, want: Mapping[str, Any], box: Sandbox, env: dict[str, str], found: Findings
) -> None:
    calls = run.of("mpirun")
    if len(calls) != 1:
        found.append(f"want one mpirun, got {calls!r}; output: {run.output.strip()[-300:]}")
        return
    got = mpirun_options(calls[0].argv)
    if "n" in want:
        found.expect(got.get("n") == want["n"], f"mpirun -n {got.get('n')} != {want['n']}")
    if "hosts" in want:
        found.expect(got.get("hosts") == want["hosts"], f"mpirun -H {got.get('hosts')}")
    forwards = got["forwards"]
    found.expect(len(forwards) == len(set(forwards)), f"env forwarded twice: {forwards}")
    missing = set(want.get("forwards_include") or ()) - set(forwards)
    found.expect(not missing, f"mpirun does not forward {sorted(missing)}")
    for pair in want.get("mca") or ():
        found.expect(pair in got["mca"], f"mpirun --mca {pair} missing: {got['mca']}")
    if "launch" in want:
        script = got.get("launch_script")
        if script is None:
            found.append(f"mpirun does not end with bash -c <launch>: {calls[0].argv}")
            return
        launched = run_container({"command": ["/bin/bash", "-c", script]}, env, box)
        launches = [list(call.argv) for call in launched.of("trtllm-llmapi-launch")]
        found.expect(
            launches == [want["launch"]],
            f"trtllm-llmapi-launch got {launches}, want {want['launch']}",
        )


def check_pod(pod: Pod, check: Mapping[str, Any], box: Sandbox, found: Findings) -> None:
    values = pod.placeholders(box)
    root = {
        "container": pod.container,
        "pod": pod.template["spec"],
        "template": pod.template,
        "workload": pod.workload,
    }
    check_paths(root, check, values, found)
    if "env" in check:
        check_env(pod.container, check["env"], found)
    words = [*(pod.container.get("command") or ()), *(pod.container.get("args") or ())]
    script = " ".join(str(word) for word in words)
    for text in check.get("script_contains") or ():
        found.expect(fill(text, values) in script, f"{text!r} not in {script!r}")
    for text in check.get("script_lacks") or ():
        found.expect(fill(text, values) not in script, f"{text!r} in {script!r}")
    env = pod.environment()
    if "shell_args" in check:
        args = [
            expand_lws_variables(kubelet_expand(str(arg), env), env)
            for arg in pod.container.get("args") or ()
        ]
        wanted = fill(check["shell_args"], values)
        found.expect(args == wanted, f"args {args!r} != {wanted!r}")
    if not any(key in check for key in ("runs", "not_runs", "mpirun", "home_files")):
        return
    try:
        run = run_container(pod.container, env, box)
    except AssertionError as error:
        found.append(str(error))
        return
    if "runs" in check:
        check_runs(run, check["runs"], values, found)
    for program in check.get("not_runs") or ():
        found.expect(not run.of(program), f"{program} ran: {run.of(program)}")
    if "mpirun" in check:
        check_mpirun(run, fill(check["mpirun"], values), box, env, found)
    for relative, texts in (check.get("home_files") or {}).items():
        path = box.home / relative
        if not path.exists():
            found.append(f"~/{relative} not written; output: {run.output.strip()[-300:]}")
            continue
        content = path.read_text()
        for text in fill(texts, values):
            found.expect(text in content, f"{text!r} not in ~/{relative}")


def check_rendered(
    rendered: Rendered, check: Mapping[str, Any], box: Sandbox, found: Findings
) -> None:
    try:
        if "pod" in check:
            check_pod(select_pod(rendered, check["pod"]), check, box, found)
        elif "object" in check:
            kind, _, name = check["object"].partition("/")
            check_paths(rendered.get(kind, name), check, {}, found)
        elif "absent_object" in check:
            kind, _, name = check["absent_object"].partition("/")
            names = [o["metadata"]["name"] for o in rendered.result.objects if o["kind"] == kind]
            found.expect(name not in names if name else not names, f"{kind} {names} rendered")
        elif "names_of_kind" in check:
            for kind, want in check["names_of_kind"].items():
                names = [
                    o["metadata"]["name"] for o in rendered.result.objects if o["kind"] == kind
                ]
                found.expect(names == want, f"{kind}: {names} != {want}")
        else:
            raise ValueError(f"check selects nothing: {check}")
    except AssertionError as error:  # the selected object is not rendered
        found.append(str(error))


# -- the tests ----------------------------------------------------------------------------------


def _settings(spec: Mapping[str, Any]) -> OperatorSettings:
    values = dict(spec.get("settings") or {})
    if "available_apis" in values:
        values["available_apis"] = frozenset(values["available_apis"])
    return OperatorSettings(**values)


def _admission(documents: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """What our admission webhooks say of the Dynamo documents (Secrets are not ours to check):
    the errors that refuse them and the warnings that do not."""
    results = [
        validate_create(document)
        for document in documents
        if str(document.get("apiVersion", "")).startswith("nvidia.com/")
    ]
    errors = [str(issue) for result in results for issue in result.errors]
    warnings = [str(issue) for result in results for issue in result.warnings]
    return errors, warnings


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_upstream_expectation_holds(case: OracleCase, tmp_path: Path) -> None:
    box = Sandbox(tmp_path)
    box.prepare()
    documents = box.substitute(_documents(case.spec))
    settings = _settings(case.spec)
    errors, admission_warnings = _admission(documents)
    if "refused" in case.spec:
        # Upstream refuses at render; we may refuse at admission (validation) or at render.
        wanted = case.spec["refused"].lower()
        if any(wanted in error.lower() for error in errors):
            return
        refusal: RenderError | None = None
        try:
            result = render_objects(documents, settings, default_namespace=NAMESPACE)
        except RenderError as error:
            refusal = error
        if refusal is not None:
            assert wanted in str(refusal).lower(), f"refused for another reason: {refusal}"
            return
        pytest.fail(
            f"upstream refuses this input ({wanted!r}); ours accepts it: admission errors "
            f"{errors}, render warnings {result.warnings}"
        )
    if "admission_refused" in case.spec:
        # A deliberate difference: upstream renders it, we refuse it at admission (README).
        wanted = case.spec["admission_refused"].lower()
        assert any(wanted in error.lower() for error in errors), f"admission said {errors}"
        if not case.spec.get("checks"):
            return  # refused outright: nothing of ours to compare with upstream's render
    else:
        assert not errors, f"upstream renders this input; our admission refuses it: {errors}"
    rendered = Rendered(render_objects(documents, settings, default_namespace=NAMESPACE))
    for text in case.spec.get("warns") or ():
        assert any(text in warning for warning in rendered.result.warnings), (
            f"no warning with {text!r}: {rendered.result.warnings}"
        )
    for text in case.spec.get("admission_warns") or ():
        assert any(text in warning for warning in admission_warnings), (
            f"no admission warning with {text!r}: {admission_warnings}"
        )
    found = Findings()
    for check in case.spec.get("checks") or ():
        check_rendered(rendered, check, box, found)
    assert not found, "differs from upstream:\n- " + "\n- ".join(found)


def test_every_case_names_its_upstream_test_and_checks_something() -> None:
    assert len(CASES) > 100
    assert len({case.id for case in CASES}) == len(CASES), "two cases share an id"
    for case in CASES:
        assert case.upstream_file.startswith("deploy/"), case.id
        assert case.upstream_test.startswith("Test"), case.id
        refusal = "refused" in case.spec or "admission_refused" in case.spec
        assert refusal or case.spec.get("checks"), f"{case.id} asserts nothing"


def test_the_shell_harness_reports_which_program_got_which_flags(tmp_path: Path) -> None:
    box = Sandbox(tmp_path)
    box.prepare()
    script = "echo a | wc -l && python3 -m dynamo.sglang --x 1 && ls -al"
    run = run_container({"command": ["/bin/sh", "-c"], "args": [script]}, {}, box)
    assert [(c.program, c.argv) for c in run.calls] == [
        ("wc", ("-l",)),
        ("python3", ("-m", "dynamo.sglang", "--x", "1")),
        ("ls", ("-al",)),
    ]
    assert option_groups(["-m", "m", "--a=1", "--b"]) == option_groups(
        ["-m", "m", "--b", "--a", "1"]
    )
    assert option_groups(["-m", "m", "--a", "1"]) != option_groups(["--a", "1", "-m", "m"])
    assert kubelet_expand("$(A):$$(A):$(B)", {"A": "x"}) == "x:$(A):$(B)"
