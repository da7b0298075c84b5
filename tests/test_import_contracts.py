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
MANAGER_FLOORS = "Manager floors: Dynamo's application above the generic runtime"
APP_LAYERS = "Application layers: cli -> commands -> reconcilers -> what they share"
RECONCILERS_INDEPENDENT = "Reconcilers of different kinds are independent"
PURE_LIBRARY_IMPORTERS = "Only Dynamo's application and the webhooks import the pure library"
WEBHOOKS_IMPORTERS = "Only the composition roots import the webhooks"
WEBHOOKS_USE_THE_RUNTIME = "Webhooks use only the manager's runtime"
RUNTIME_INDEPENDENT = "Work queue, cache and leader election are independent"
DISCOVERY_ON_CLIENT = "Discovery stands on the client, never the reverse"
NO_CIRCLES = "No import circles"

CONTRACT_LINE = re.compile(r"^(?P<name>.+) (?P<status>KEPT|BROKEN)\b")


@dataclass(frozen=True)
class Case:
    """New modules written into the copy (path -> source) and the contracts they must break
    (none: the import is allowed). Nothing imports them, so each breaks only its own contracts,
    and `NO_CIRCLES` too when the import goes against one the tree already has."""

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
        {
            "manager/app/reconcilers/graph_deployment/violation.py": module(
                "import webhooks.handlers"
            )
        },
        frozenset({WEBHOOKS_IMPORTERS}),
    ),
    Case(
        "reconciler imports another kind's reconciler",
        {
            "manager/app/reconcilers/graph_deployment/violation.py": module(
                "from manager.app.reconcilers.component_deployment import reconciler"
            ),
        },
        frozenset({RECONCILERS_INDEPENDENT}),
    ),
    Case(
        "reconciler imports the commands",
        {
            "manager/app/reconcilers/model/violation.py": module(
                "import manager.app.commands.render"
            )
        },
        frozenset({APP_LAYERS, NO_CIRCLES}),
    ),
    Case(
        "what the reconcilers share imports a reconciler",
        {"manager/app/kinds_violation.py": module("import manager.app.reconcilers.model")},
        frozenset({APP_LAYERS}),
    ),
    Case(
        "a command imports the command line",
        {"manager/app/commands/violation.py": module("import manager.app.cli")},
        frozenset({APP_LAYERS, NO_CIRCLES}),
    ),
    Case(
        "an unplaced module under manager/app/",
        {"manager/app/unplaced.py": module("import manager.runtime.client")},
        frozenset({APP_LAYERS}),
    ),
    Case(
        "runtime imports manager.app.reconcilers",
        {"manager/runtime/cache/violation.py": module("import manager.app.reconcilers")},
        frozenset({MANAGER_FLOORS, NO_CIRCLES}),
    ),
    Case(
        "runtime imports manager.app.commands",
        {"manager/runtime/controller/violation.py": module("from manager.app.commands import run")},
        frozenset({MANAGER_FLOORS, NO_CIRCLES}),
    ),
    Case(
        "runtime imports manager.app.cli",
        {"manager/runtime/violation.py": module("import manager.app.cli")},
        frozenset({MANAGER_FLOORS, NO_CIRCLES}),
    ),
    Case(
        "runtime imports dynamo_operator",
        {"manager/runtime/workqueue/violation.py": module("import dynamo_operator.naming")},
        frozenset({PURE_LIBRARY_IMPORTERS}),
    ),
    Case(
        "runtime imports webhooks",
        {"manager/runtime/events/violation.py": module("import webhooks.admission")},
        frozenset({WEBHOOKS_IMPORTERS}),
    ),
    Case(
        "a command other than the composition roots imports webhooks",
        {"manager/app/commands/violation.py": module("import webhooks.admission")},
        frozenset({WEBHOOKS_IMPORTERS}),
    ),
    *(
        Case(
            f"{source} imports {target}",
            {f"manager/runtime/{source}/violation.py": module(f"import manager.runtime.{target}")},
            frozenset({RUNTIME_INDEPENDENT}),
        )
        for source, target in (
            ("workqueue", "cache"),
            ("cache", "leaderelection"),
            ("leaderelection", "workqueue"),
        )
    ),
    Case(
        "client imports discovery",
        {"manager/runtime/client/violation.py": module("import manager.runtime.discovery")},
        frozenset({DISCOVERY_ON_CLIENT, NO_CIRCLES}),
    ),
    *(
        Case(
            f"dynamo_operator imports {name}",
            {"dynamo_operator/violation.py": module(f"import {name}")},
            frozenset({PURE_LIBRARY}),
        )
        for name in ("yaml", "orjson", "cryptography", "kr8s", "asyncio", "os", "manager.runtime")
    ),
    Case(
        "webhooks import manager.app.commands",
        {"webhooks/violation.py": module("import manager.app.commands.render")},
        frozenset({WEBHOOKS_USE_THE_RUNTIME}),
    ),
    Case(
        "webhooks import manager.app.reconcilers",
        {"webhooks/certificates/violation.py": module("import manager.app.reconcilers")},
        frozenset({WEBHOOKS_USE_THE_RUNTIME}),
    ),
    Case(
        "webhooks import manager.app.cli",
        {"webhooks/violation.py": module("from manager.app import cli")},
        frozenset({WEBHOOKS_USE_THE_RUNTIME}),
    ),
    Case(
        "an unplaced top-level module under manager/",
        {"manager/unplaced.py": module("import manager.runtime.client")},
        frozenset({MANAGER_FLOORS}),
    ),
    *(
        Case(
            f"two modules of {package} import each other",
            {
                f"{package.replace('.', '/')}/circle_a.py": module(f"import {package}.circle_b"),
                f"{package.replace('.', '/')}/circle_b.py": module(f"import {package}.circle_a"),
            },
            frozenset({NO_CIRCLES}),
        )
        # Where the two circles were (the cache's reader imported the cache; `run` imported the
        # operator, which read its options from `run`), and in the other packages.
        for package in (
            "manager.runtime.cache",
            "manager.app.commands",
            "webhooks.certificates",
            "dynamo_operator.status",
        )
    ),
    Case(
        "webhooks import the runtime (allowed)",
        {
            "webhooks/violation.py": module(
                "import manager.runtime.client.rest", "import manager.runtime.backoff"
            )
        },
    ),
    Case(
        "a new module inside a runtime package (allowed: the runtime is one layer)",
        {
            "manager/runtime/cache/extra.py": module(
                "import manager.runtime.client.rest", "import manager.runtime.kinds"
            )
        },
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
        MANAGER_FLOORS,
        APP_LAYERS,
        RECONCILERS_INDEPENDENT,
        PURE_LIBRARY_IMPORTERS,
        WEBHOOKS_IMPORTERS,
        WEBHOOKS_USE_THE_RUNTIME,
        RUNTIME_INDEPENDENT,
        DISCOVERY_ON_CLIENT,
        NO_CIRCLES,
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
