"""The import contracts in pyproject.toml bite: a forbidden import breaks the contract against it.

Each case copies the three packages and pyproject.toml into a temporary directory, writes one import
into the copy and runs lint-imports there. grimp finds the root packages through the import system;
PYTHONPATH puts the copy ahead of the editable install (whose finder comes last on `sys.meta_path`),
and `test_the_unmodified_copy_keeps_every_contract` checks that the copy is what gets analysed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parent.parent
PACKAGES = ("dynamo_operator", "manager", "webhooks")

PURE_LIBRARY = "Pure library: only pydantic and the standard library, no I/O"
MANAGER_LAYERS = "Manager layers: cli -> commands -> reconcilers -> generic core"
RECONCILERS_INDEPENDENT = "Reconcilers of different kinds are independent"
PURE_LIBRARY_IMPORTERS = "Only cli, commands, reconcilers and webhooks import the pure library"
WEBHOOKS_IMPORTERS = "Only the command line imports the webhooks"
WEBHOOKS_USE_THE_CORE = "Webhooks use only the manager's generic core"

CONTRACT_LINE = re.compile(r"^(?P<name>.+) (?P<status>KEPT|BROKEN)\b")


@dataclass(frozen=True)
class Case:
    """New modules written into the copy (path -> source) and the contracts they must break
    (none: the import is allowed). Nothing imports them, so each breaks only its own contracts."""

    id: str
    files: dict[str, str]
    broken: frozenset[str] = field(default_factory=frozenset)


def module(*imports: str) -> str:
    return '"""Written by tests/test_import_contracts.py."""\n\n' + "".join(
        f"{i}\n" for i in imports
    )


CASES = [
    Case(
        "reconciler imports webhooks",
        {"manager/reconcilers/graph_deployment.py": module("import webhooks.handlers")},
        frozenset({WEBHOOKS_IMPORTERS}),
    ),
    Case(
        "reconciler imports another kind's reconciler",
        {
            "manager/reconcilers/graph_deployment/__init__.py": module(),
            "manager/reconcilers/graph_deployment/reconciler.py": module(
                "from manager.reconcilers.component_deployment import status"
            ),
            "manager/reconcilers/component_deployment/__init__.py": module(),
            "manager/reconcilers/component_deployment/status.py": module(),
        },
        frozenset({RECONCILERS_INDEPENDENT}),
    ),
    Case(
        "reconciler imports the commands",
        {"manager/reconcilers/model.py": module("import manager.commands.render")},
        frozenset({MANAGER_LAYERS}),
    ),
    Case(
        "core imports manager.reconcilers",
        {"manager/cache/violation.py": module("import manager.reconcilers")},
        frozenset({MANAGER_LAYERS}),
    ),
    Case(
        "core imports manager.commands",
        {"manager/controller/violation.py": module("from manager.commands import render")},
        frozenset({MANAGER_LAYERS}),
    ),
    Case(
        "core imports manager.cli",
        {"manager/leaderelection/violation.py": module("import manager.cli")},
        frozenset({MANAGER_LAYERS}),
    ),
    Case(
        "core imports dynamo_operator",
        {"manager/workqueue/violation.py": module("import dynamo_operator.naming")},
        frozenset({PURE_LIBRARY_IMPORTERS}),
    ),
    Case(
        "core imports webhooks",
        {"manager/events/violation.py": module("import webhooks.admission")},
        frozenset({WEBHOOKS_IMPORTERS}),
    ),
    *(
        Case(
            f"dynamo_operator imports {name}",
            {"dynamo_operator/violation.py": module(f"import {name}")},
            frozenset({PURE_LIBRARY}),
        )
        for name in ("yaml", "orjson", "cryptography", "kr8s", "asyncio", "os", "manager.kinds")
    ),
    Case(
        "webhooks import manager.commands",
        {"webhooks/violation.py": module("import manager.commands.render")},
        frozenset({WEBHOOKS_USE_THE_CORE}),
    ),
    Case(
        "webhooks import manager.reconcilers",
        {"webhooks/certificates/violation.py": module("import manager.reconcilers")},
        frozenset({WEBHOOKS_USE_THE_CORE}),
    ),
    Case(
        "webhooks import manager.cli",
        {"webhooks/violation.py": module("from manager import cli")},
        frozenset({WEBHOOKS_USE_THE_CORE}),
    ),
    Case(
        "an unplaced top-level module under manager/",
        {"manager/unplaced.py": module("import manager.client")},
        frozenset({MANAGER_LAYERS}),
    ),
    Case(
        "webhooks import the generic core (allowed)",
        {
            "webhooks/violation.py": module(
                "import manager.client.rest", "import manager.cache.backoff"
            )
        },
    ),
    Case(
        "a new module inside a core package (allowed: packages are placed whole)",
        {"manager/cache/extra.py": module("import manager.client.rest", "import manager.kinds")},
    ),
]


def copy_of_the_tree(destination: Path) -> Path:
    for package in PACKAGES:
        shutil.copytree(
            REPOSITORY / package,
            destination / package,
            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
        )
    shutil.copy(REPOSITORY / "pyproject.toml", destination / "pyproject.toml")
    return destination


def environment_for(tree: Path) -> dict[str, str]:
    # COLUMNS: lint-imports wraps long contract names at 80 columns when not on a terminal.
    return {**os.environ, "PYTHONPATH": str(tree), "COLUMNS": "200"}


def lint_imports(tree: Path) -> dict[str, str]:
    """Run lint-imports on the tree; return each contract's status by name."""
    executable = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run(
        [str(executable) if executable.exists() else "lint-imports"],
        cwd=tree,
        env=environment_for(tree),
        capture_output=True,
        text=True,
        timeout=120,
    )
    statuses = {
        match["name"]: match["status"]
        for line in result.stdout.splitlines()
        if (match := CONTRACT_LINE.match(line))
    }
    assert statuses, result.stdout + result.stderr
    assert (result.returncode == 0) == ("BROKEN" not in statuses.values()), result.stdout
    return statuses


def contract_names() -> set[str]:
    configuration = tomllib.loads((REPOSITORY / "pyproject.toml").read_text())
    return {contract["name"] for contract in configuration["tool"]["importlinter"]["contracts"]}


def test_the_unmodified_copy_keeps_every_contract(tmp_path: Path) -> None:
    tree = copy_of_the_tree(tmp_path)
    located = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import {', '.join(PACKAGES)}; print({', '.join(f'{p}.__file__' for p in PACKAGES)})",
        ],
        cwd=tree,
        env=environment_for(tree),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert all(Path(path).is_relative_to(tree) for path in located), located

    statuses = lint_imports(tree)

    assert contract_names() == {
        PURE_LIBRARY,
        MANAGER_LAYERS,
        RECONCILERS_INDEPENDENT,
        PURE_LIBRARY_IMPORTERS,
        WEBHOOKS_IMPORTERS,
        WEBHOOKS_USE_THE_CORE,
    }
    assert statuses == dict.fromkeys(contract_names(), "KEPT")


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_a_forbidden_import_breaks_its_contract(tmp_path: Path, case: Case) -> None:
    tree = copy_of_the_tree(tmp_path)
    for relative, source in case.files.items():
        path = tree / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)

    statuses = lint_imports(tree)

    assert {name for name, status in statuses.items() if status == "BROKEN"} == case.broken
