"""The Dynamo test image for end-to-end tests: ai-dynamo 1.6.1 on CPU, and how to run its parts.

``hack/image/build-dynamo.sh`` builds ``localhost/dynamo-cpu:dev`` from
``hack/image/dynamo-cpu/Dockerfile`` the way ``hack/image/build.sh`` builds the operator image
(buildah over the Debian-built base, cached by a key over its inputs) and prints the path of a
docker-archive tar. Tests use it through the session fixture ``dynamo_image_tar``; the first use
in a session builds or reuses it, and a failed build fails the test with the build's last lines,
never a skip.

The image runs as uid 1000 with ``HOME=/tmp`` and ``HF_HUB_OFFLINE=1``; ``python3`` is the venv's.
Its commands, as argv lists a graph's container can use:

- ``frontend_command()``: the OpenAI frontend (port from ``DYN_HTTP_PORT``, default 8000);
- ``mocker_command(model_dir, name)``: Dynamo's mocker worker. Its ``/health`` needs
  ``MOCKER_HEALTH_ENV`` to ever answer 200;
- ``engine_command(model_dir, name, lora=True)``: this repository's test engine
  (``hack/image/dynamo-cpu/dynamo_lora_engine``): fixed answers, and with ``lora`` the
  ``load_lora``/``unload_lora``/``list_loras`` endpoints behind the system port's ``/v1/loras``
  routes (those routes exist only with ``DYN_LORA_ENABLED=true``).

Workers serve their system port when ``DYN_SYSTEM_PORT`` is set. The model directory is what
``e2e.dynamo_model.model_files()`` makes. ``LOOPBACK_ENV`` makes processes on one host's loopback
find each other without etcd (file discovery under ``/tmp/dynamo-kv``, a directory they share).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Final

import pytest

from e2e.support.operator_image import ROOT, run_image_build

BUILD_SCRIPT: Final = ROOT / "hack" / "image" / "build-dynamo.sh"
IMAGE: Final = "localhost/dynamo-cpu:dev"
USER: Final = "1000:1000"
ENGINE_MODULE: Final = "dynamo_lora_engine"
FRONTEND_MODULE: Final = "dynamo.frontend"
MOCKER_MODULE: Final = "dynamo.mocker"

# The mocker serves /health 503 until this (deprecated in 1.6.1, still read) names its endpoint.
MOCKER_HEALTH_ENV: Final = {"DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS": '["generate"]'}
# Processes of one host: discovery in a shared directory instead of etcd, and every advertised
# address on loopback (in a pod they default to the pod IP, which is right there).
LOOPBACK_ENV: Final = {
    "DYN_DISCOVERY_BACKEND": "file",
    "DYN_FILE_KV": "/tmp/dynamo-kv",
    "DYN_TCP_RPC_HOST": "127.0.0.1",
    "DYN_EVENT_PLANE_HOST": "127.0.0.1",
    "DYN_SYSTEM_HOST": "127.0.0.1",
    "DYN_HTTP_HOST": "127.0.0.1",
}


def frontend_command() -> list[str]:
    return ["python3", "-m", FRONTEND_MODULE]


def mocker_command(model_dir: str, model_name: str) -> list[str]:
    return ["python3", "-m", MOCKER_MODULE, "--model-path", model_dir, "--model-name", model_name]


def engine_command(model_dir: str, model_name: str, *, lora: bool = True) -> list[str]:
    command = ["python3", "-m", ENGINE_MODULE, "--model-path", model_dir]
    return [*command, "--model-name", model_name, *(["--enable-lora"] if lora else [])]


@functools.cache
def build_dynamo_image() -> Path:
    """The image archive's path: built by ``hack/image/build-dynamo.sh`` or reused."""
    return run_image_build(BUILD_SCRIPT)


@pytest.fixture(scope="session")
def dynamo_image_tar() -> Path:
    """The docker-archive of ``localhost/dynamo-cpu:dev`` (``ctr -n k8s.io images import``)."""
    return build_dynamo_image()
