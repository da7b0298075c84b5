"""Lazy package exports: names resolve on first use, and each lazy `__init__` stays consistent."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import types
from pathlib import Path

import pytest

from manager.runtime.lazy import lazy_exports, type_checking_imports

REPOSITORY = Path(__file__).resolve().parents[3]
LAZY_PACKAGES = ("manager.runtime", "manager.app", "manager.app.commands", "webhooks")


def test_a_name_is_imported_on_first_access_and_then_cached() -> None:
    package = types.ModuleType("lazy_test_package")
    package.__getattr__, package.__dir__ = lazy_exports(
        package.__name__, {"json": ("dumps",), "textwrap": ("dedent",)}
    )
    sys.modules[package.__name__] = package
    try:
        assert "dumps" not in vars(package)
        assert package.dumps is importlib.import_module("json").dumps
        assert "dumps" in vars(package)
        assert {"dumps", "dedent"} <= set(dir(package))
        with pytest.raises(AttributeError, match="no attribute 'loads'"):
            _ = package.loads
    finally:
        del sys.modules[package.__name__]


def _type_checking_names(package: str) -> set[str]:
    init = REPOSITORY.joinpath(*package.split("."), "__init__.py")
    names: set[str] = set()
    for statement in ast.parse(init.read_text()).body:
        if isinstance(statement, ast.If):
            for node in ast.walk(statement):
                if isinstance(node, ast.ImportFrom):
                    names.update(alias.asname or alias.name for alias in node.names)
    return names


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_the_type_checking_imports_name_exactly_the_public_names(package: str) -> None:
    """Type checkers see the `if TYPE_CHECKING` imports, the runtime the lazy table: both must
    cover `__all__` (tests/test_public_surface.py checks each listed name resolves)."""
    module = importlib.import_module(package)

    assert _type_checking_names(package) == set(module.__all__)


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_importing_the_package_imports_none_of_its_modules(package: str) -> None:
    script = (
        f"import sys, {package}\n"
        f"print(sorted(m for m in sys.modules if m.startswith('{package}.')"
        " and m != 'manager.runtime.lazy'))"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )

    assert completed.stdout.strip() == "[]"


def test_the_lazy_table_is_read_from_the_type_checking_imports() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "import os\n"
        "if TYPE_CHECKING:\n"
        "    from json import dumps, loads\n"
        "    from textwrap import dedent as dedent, indent as shift\n"
        "from os import path\n"
    )

    assert type_checking_imports(source) == {"json": ("dumps", "loads"), "textwrap": ("dedent",)}
