"""The Dynamo test image serves, with no cluster: its rootfs run on this host's loopback.

The archive of ``hack/image/build-dynamo.sh`` is extracted and its commands run as the image's
user under chroot (``run_in_rootfs``: root read-only, one host directory as ``/tmp``). All the
processes of a test share that ``/tmp``, which holds the model directory of
``e2e.dynamo_model.model_files()`` and the file discovery store (``LOOPBACK_ENV``). Every process
is stopped at the end of its test, also when the test fails; their logs are printed then.
Needs root on the host (mount namespace, chroot), as the build does.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from e2e.localcluster import rss_bytes
from e2e.localcluster.ports import free_port
from e2e.support.dynamo_image import (
    IMAGE,
    LOOPBACK_ENV,
    MOCKER_HEALTH_ENV,
    USER,
    engine_command,
    frontend_command,
    mocker_command,
)
from e2e.support.dynamo_model import MAX_TOTAL_BYTES, MOCKER_TOKEN_IDS, model_files
from e2e.support.operator_image import ImageArchive, run_in_rootfs

pytestmark = pytest.mark.e2e

MODEL = "tiny"
MODEL_DIR = "/tmp/model"  # in the image: the host directory every process of a test shares
FAILING_URI = "s3://unreachable/"  # the engine fails loads from here (--fail-uri-prefix)
STARTUP_TIMEOUT = 90.0  # seconds; a start takes ~1 s idle, far more on a loaded 2-core machine


@pytest.fixture(scope="module")
def archive(dynamo_image_tar: Path) -> ImageArchive:
    return ImageArchive(dynamo_image_tar)


@pytest.fixture(scope="module")
def rootfs(archive: ImageArchive, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    directory = tmp_path_factory.mktemp("dynamo-image") / "rootfs"
    yield archive.extract_rootfs(directory)
    # ~450 MB of root-owned files: not left for pytest's temp-dir rotation.
    subprocess.run(["rm", "-rf", "--one-file-system", str(directory)], check=True)


class Host:
    """Processes of the image on this host's loopback, sharing one /tmp; ``stop`` ends them all."""

    def __init__(self, rootfs: Path, config: dict[str, Any], workdir: Path) -> None:
        self.rootfs, self.config, self.workdir = rootfs, config, workdir
        self.tmp = workdir / "tmp"
        self.tmp.mkdir()
        (self.tmp / "model").mkdir()
        for name, text in model_files().items():
            (self.tmp / "model" / name).write_text(text)
        self.processes: dict[str, subprocess.Popen[str]] = {}

    def start(self, name: str, argv: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
        variables = {**LOOPBACK_ENV, **env}
        log = (self.workdir / f"{name}.log").open("w")
        process = run_in_rootfs(
            self.rootfs,
            self.config,
            argv,
            self.tmp,
            entrypoint=[],
            environment=[f"{key}={value}" for key, value in variables.items()],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: stop() reaches anything it forks
        )
        log.close()
        self.processes[name] = process
        return process

    def run(self, argv: list[str], stdin: str = "") -> subprocess.CompletedProcess[str]:
        process = run_in_rootfs(
            self.rootfs, self.config, argv, self.tmp, entrypoint=[], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )  # fmt: skip
        output, _ = process.communicate(stdin, timeout=60)
        return subprocess.CompletedProcess(argv, process.returncode, output)

    def wait_for(self, what: str, condition: Callable[[], bool]) -> None:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while time.monotonic() < deadline:
            exited = {name: p.poll() for name, p in self.processes.items() if p.poll() is not None}
            assert not exited, f"waiting for {what}, processes exited: {exited}\n{self.logs()}"
            if condition():
                return
            time.sleep(0.2)
        raise AssertionError(f"no {what} after {STARTUP_TIMEOUT:.0f}s\n{self.logs()}")

    def rss_mib(self, name: str) -> float:
        # After its exec chain (unshare, sh, chroot, env) the process started is python itself.
        return round(rss_bytes(self.processes[name].pid) / 2**20, 1)

    def stop(self) -> dict[str, int]:
        """SIGTERM to every process group, SIGKILL after 15 s; the exit codes."""
        for process in self.processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        codes = {}
        for name, process in self.processes.items():
            try:
                codes[name] = process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                codes[name] = process.wait()
        return codes

    def logs(self, lines: int = 25) -> str:
        tails = []
        for name in self.processes:
            text = (self.workdir / f"{name}.log").read_text(errors="replace").splitlines()
            tails.append(f"--- {name} (last {lines} lines)\n" + "\n".join(text[-lines:]))
        return "\n".join(tails)


@pytest.fixture
def host(rootfs: Path, archive: ImageArchive, tmp_path: Path) -> Iterator[Host]:
    machine = Host(rootfs, archive.config, tmp_path)
    try:
        yield machine
    finally:
        codes = machine.stop()
        print(f"exit codes after SIGTERM: {codes}\n{machine.logs()}")  # shown when a test fails


def call(method: str, url: str, body: object = None) -> tuple[int, Any]:
    """(status, parsed JSON body or text); an HTTP error status is an answer, not an exception."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, raw = error.code, error.read()
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, raw.decode(errors="replace")


def answers_200(url: str) -> bool:
    try:
        return call("GET", url)[0] == 200
    except OSError:
        return False  # not listening yet


def served_models(http_port: int) -> set[str]:
    try:
        status, body = call("GET", f"http://127.0.0.1:{http_port}/v1/models")
    except OSError:
        return set()
    return {model["id"] for model in body["data"]} if status == 200 else set()


def chat(http_port: int, model: str) -> str:
    request = {"model": model, "messages": [{"role": "user", "content": "Hello"}], "max_tokens": 6}
    status, body = call("POST", f"http://127.0.0.1:{http_port}/v1/chat/completions", request)
    assert status == 200, body
    content: str = body["choices"][0]["message"]["content"] or ""
    return content


def test_model_files_are_deterministic_small_and_cover_the_mocker_tokens() -> None:
    from tokenizers import Tokenizer

    files = model_files()
    assert files == model_files.__wrapped__()  # trained again, uncached: the same bytes
    assert sum(len(text.encode()) for text in files.values()) < MAX_TOTAL_BYTES
    tokenizer = Tokenizer.from_str(files["tokenizer.json"])
    assert json.loads(files["config.json"])["vocab_size"] == tokenizer.get_vocab_size() >= 2000
    assert all(tokenizer.decode([token]) for token in MOCKER_TOKEN_IDS)
    assert "chat_template" in json.loads(files["tokenizer_config.json"])


def test_image_config_and_tools(
    archive: ImageArchive, host: Host, record_property: Callable[[str, object], None]
) -> None:
    assert archive.repo_tags == [IMAGE]
    mib = [round(layer.size / 2**20, 1) for layer in archive.layers]
    record_property("image_uncompressed_mib", round(sum(mib), 1))
    record_property("layer_mib", mib)
    print(f"\n{IMAGE}: {sum(mib):.1f} MiB uncompressed, layers {mib} MiB")
    config = archive.config["config"]
    assert config["User"] == USER
    assert {"HOME=/tmp", "HF_HUB_OFFLINE=1"} <= set(config["Env"])
    # curl and jq for the probes the operator renders; python3 is the venv's.
    curl = host.run(["curl", "--version"])
    assert (curl.returncode, curl.stdout[:5]) == (0, "curl "), curl.stdout
    jq = host.run(["jq", "-e", ".ready"], stdin='{"ready": true}')
    assert (jq.returncode, jq.stdout.strip()) == (0, "true"), jq.stdout
    python = host.run(["python3", "-c", "import sys; print(sys.prefix)"])
    assert python.stdout.strip() == "/opt/venv", python.stdout
    engine = host.run([*engine_command(MODEL_DIR, MODEL), "--help"])
    assert engine.returncode == 0, engine.stdout
    assert "--enable-lora" in engine.stdout


def test_frontend_and_mocker_answer_a_chat(
    host: Host, record_property: Callable[[str, object], None]
) -> None:
    http_port, system_port = free_port(), free_port()
    host.start("frontend", frontend_command(), {"DYN_HTTP_PORT": str(http_port)})
    worker_env = {"DYN_SYSTEM_PORT": str(system_port), **MOCKER_HEALTH_ENV}
    host.start("mocker", mocker_command(MODEL_DIR, MODEL), worker_env)
    health = f"http://127.0.0.1:{system_port}/health"
    host.wait_for("mocker /health 200", lambda: answers_200(health))
    host.wait_for(f"{MODEL} in /v1/models", lambda: MODEL in served_models(http_port))
    assert chat(http_port, MODEL).strip()
    for name in ("frontend", "mocker"):
        record_property(f"{name}_rss_mib", host.rss_mib(name))


def test_engine_loads_and_unloads_adapters_through_the_system_port(
    host: Host, record_property: Callable[[str, object], None]
) -> None:
    port = free_port()
    argv = [*engine_command(MODEL_DIR, MODEL), "--fail-uri-prefix", FAILING_URI]
    host.start("engine", argv, {"DYN_SYSTEM_PORT": str(port), "DYN_LORA_ENABLED": "true"})
    host.wait_for("engine /health 200", lambda: answers_200(f"http://127.0.0.1:{port}/health"))
    loras = f"http://127.0.0.1:{port}/v1/loras"
    load = {"lora_name": "adapter-a", "source": {"uri": "file:///models/adapter-a"}}

    status, loaded = call("POST", loras, load)
    assert (status, loaded["status"], loaded["lora_name"]) == (200, "success", "adapter-a")
    listed = {"status": "success", "loras": {"adapter-a": loaded["lora_id"]}, "count": 1}
    assert call("GET", loras) == (200, listed)
    again = call("POST", loras, load)
    assert (again[0], again[1]["lora_id"]) == (200, loaded["lora_id"]), again  # idempotent
    failing = {"lora_name": "adapter-b", "source": {"uri": FAILING_URI + "adapter-b"}}
    assert call("POST", loras, failing)[0] == 500

    assert call("DELETE", f"{loras}/adapter-a")[0] == 200
    assert call("DELETE", f"{loras}/adapter-a")[0] == 500  # no longer held
    assert call("DELETE", f"{loras}/never-loaded")[0] == 500
    assert call("GET", loras) == (200, {"status": "success", "loras": {}, "count": 0})
    record_property("engine_rss_mib", host.rss_mib("engine"))
    assert host.stop() == {"engine": 0}  # SIGTERM: a clean exit


def test_a_loaded_adapter_is_a_model_of_the_frontend(host: Host) -> None:
    http_port, system_port = free_port(), free_port()
    host.start("frontend", frontend_command(), {"DYN_HTTP_PORT": str(http_port)})
    worker_env = {"DYN_SYSTEM_PORT": str(system_port), "DYN_LORA_ENABLED": "true"}
    host.start("engine", engine_command(MODEL_DIR, MODEL), worker_env)
    host.wait_for(f"{MODEL} in /v1/models", lambda: MODEL in served_models(http_port))
    load = {"lora_name": "adapter-a", "source": {"uri": "file:///models/adapter-a"}}
    assert call("POST", f"http://127.0.0.1:{system_port}/v1/loras", load)[0] == 200
    host.wait_for("adapter-a in /v1/models", lambda: "adapter-a" in served_models(http_port))
    base, adapted = chat(http_port, MODEL), chat(http_port, "adapter-a")
    assert base.strip()
    assert adapted.strip()
    assert base != adapted  # the engine shifts its answer by the adapter's id

    assert call("DELETE", f"http://127.0.0.1:{system_port}/v1/loras/adapter-a")[0] == 200
    host.wait_for("adapter-a gone", lambda: "adapter-a" not in served_models(http_port))
