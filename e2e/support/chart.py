"""The Helm charts of ``deploy/helm`` rendered with ``helm template``, for tests.

The unit tests of ``tests/deploy`` assert what a user gets from given values; the end-to-end tests
take objects from the rendered chart (the RBAC an operator runs with, the cert-manager objects),
so what they prove is about the chart itself. The helm binary is the cached build of
``hack/control-plane/build.sh`` (the same one the local control plane comes from); a missing build
is built, never skipped.
"""

from __future__ import annotations

import functools
import subprocess
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
CHARTS = ROOT / "deploy" / "helm"
OPERATOR_CHART = CHARTS / "dynamo-operator"
CRD_CHART = CHARTS / "dynamo-operator-crds"
SERVICE_MONITOR_API = "monitoring.coreos.com/v1/ServiceMonitor"


class ChartError(RuntimeError):
    """helm refused the chart or the values (its message included)."""


@functools.cache
def helm() -> Path:
    # Imported here: reading the charts (unit tests of deploy/) must not need the harness.
    from e2e.localcluster import ensure_binaries

    return ensure_binaries(show_progress=False).helm


def run_helm(*arguments: str) -> str:
    result = subprocess.run(
        [str(helm()), *arguments], capture_output=True, text=True, check=False, timeout=120
    )
    if result.returncode != 0:
        raise ChartError(f"helm {' '.join(arguments)}: {result.stderr.strip()}")
    return result.stdout


def render(
    chart: Path = OPERATOR_CHART,
    *,
    release: str = "dynamo-operator",
    namespace: str = "dynamo-system",
    values: Mapping[str, Any] | None = None,
    values_files: Iterable[Path] = (),
    api_versions: Iterable[str] = (),
) -> list[dict[str, Any]]:
    """Every object ``helm template`` renders, in order."""
    with tempfile.TemporaryDirectory() as scratch:
        arguments = ["template", release, str(chart), f"--namespace={namespace}"]
        for path in values_files:
            arguments.append(f"--values={path}")
        if values:
            path = Path(scratch) / "values.yaml"
            path.write_text(yaml.safe_dump(dict(values)))
            arguments.append(f"--values={path}")
        arguments.extend(f"--api-versions={api}" for api in api_versions)
        output = run_helm(*arguments)
    return [document for document in yaml.safe_load_all(output) if document]


def lint(chart: Path, *, values: Mapping[str, Any] | None = None) -> str:
    with tempfile.TemporaryDirectory() as scratch:
        arguments = ["lint", "--strict", str(chart)]
        if values:
            path = Path(scratch) / "values.yaml"
            path.write_text(yaml.safe_dump(dict(values)))
            arguments.append(f"--values={path}")
        return run_helm(*arguments)


def of_kind(objects: Iterable[Mapping[str, Any]], *kinds: str) -> list[dict[str, Any]]:
    return [dict(obj) for obj in objects if obj["kind"] in kinds]


def one(objects: Iterable[Mapping[str, Any]], kind: str, name: str | None = None) -> dict[str, Any]:
    found = [
        obj for obj in of_kind(objects, kind) if name is None or obj["metadata"]["name"] == name
    ]
    assert len(found) == 1, f"{len(found)} {kind} named {name}: {[o['metadata'] for o in found]}"
    return found[0]


def manager_container(objects: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    deployment = one(objects, "Deployment")
    [container] = [
        c for c in deployment["spec"]["template"]["spec"]["containers"] if c["name"] == "manager"
    ]
    return dict(container)


def flags(objects: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """The operator's flags as `dynamo-operator run` reads them: the last of a repeated flag
    wins, a bare boolean flag is "true"."""
    container = manager_container(objects)
    assert container["args"][0] == "run", container["args"]
    parsed: dict[str, str] = {}
    for argument in container["args"][1:]:
        name, _, value = argument.partition("=")
        parsed[name] = value if "=" in argument else "true"
    return parsed
