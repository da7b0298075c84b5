"""Every package's `__init__` lists its public names in `__all__`, and the list can be trusted.

For each package (found by walking the three source trees, so a new one is covered without
editing this file), `__all__` must exist, hold each name once, in ruff's RUF022 order, and every
name in it must be importable from the package. In the other direction, every public name the
`__init__` binds must be listed, and every name another package imports from one of this
package's modules must be listed too: a name other packages use is public, wherever they import
it from. Unit tests under `tests/` may import a module's internals to test it; they are not
scanned. `e2e/`, `bench/` and `hack/` use the operator from outside, so they are.
"""

from __future__ import annotations

import ast
import importlib
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parent.parent
SOURCE_TREES = ("dynamo_operator", "manager", "webhooks")
OUTSIDE_USERS = ("e2e", "bench", "hack")


def _package_name(directory: Path) -> str:
    return ".".join(directory.relative_to(REPOSITORY).parts)


PACKAGES = sorted(
    _package_name(init.parent)
    for tree in SOURCE_TREES
    for init in (REPOSITORY / tree).rglob("__init__.py")
)

# Packages whose `__init__` is known not to be truthful yet, with why: each is a strict xfail, so
# the entry must go once the package is fixed.
PENDING: dict[str, str] = {}


# --- reading the sources -----------------------------------------------------------------------


def _is_module(dotted: str) -> bool:
    """Whether `dotted` names a module or package of the source trees."""
    path = REPOSITORY.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _owning_package(module: str) -> str:
    """The package whose public surface covers `module`: itself if it is a package."""
    return module if module in PACKAGES else module.rpartition(".")[0]


def _declared_all(package: str) -> object:
    return getattr(importlib.import_module(package), "__all__", None)


def _top_level_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements that bind module names, including those under `if`/`try` at top level."""
    for statement in body:
        yield statement
        if isinstance(statement, ast.If | ast.Try):
            nested = [*statement.body, *statement.orelse]
            if isinstance(statement, ast.Try):
                nested += [*statement.finalbody, *(s for h in statement.handlers for s in h.body)]
            yield from _top_level_statements(nested)


def _bound_names(tree: ast.Module) -> set[str]:
    """Every name the module binds at top level (imports, assignments, functions, classes)."""
    names: set[str] = set()
    for statement in _top_level_statements(tree.body):
        if isinstance(statement, ast.ImportFrom) and statement.module != "__future__":
            names.update(alias.asname or alias.name for alias in statement.names)
        elif isinstance(statement, ast.Import):
            names.update(alias.asname or alias.name.partition(".")[0] for alias in statement.names)
        elif isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(statement.name)
        elif isinstance(statement, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return names


@dataclass(frozen=True)
class CrossImport:
    """`from <module> import <name>` in `path`, from outside the package that owns `module`."""

    path: str
    line: int
    module: str
    name: str


def _importer_package(path: Path) -> str | None:
    """The package a file belongs to; None outside the source trees."""
    if path.relative_to(REPOSITORY).parts[0] not in SOURCE_TREES:
        return None
    return _package_name(path.parent)


def _cross_package_imports() -> Iterator[CrossImport]:
    for tree in (*SOURCE_TREES, *OUTSIDE_USERS):
        for path in sorted((REPOSITORY / tree).rglob("*.py")):
            importer = _importer_package(path)
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if not isinstance(node, ast.ImportFrom):
                    continue
                module = node.module or ""
                if node.level:  # relative: resolve against the importing file's package
                    base = _package_name(path.parent).split(".")[: 1 - node.level or None]
                    module = ".".join([*base, *filter(None, [module])])
                if module.partition(".")[0] not in SOURCE_TREES:
                    continue
                if _owning_package(module) == importer:
                    continue
                for alias in node.names:
                    if not _is_module(f"{module}.{alias.name}"):
                        yield CrossImport(
                            str(path.relative_to(REPOSITORY)), node.lineno, module, alias.name
                        )


CROSS_IMPORTS = list(_cross_package_imports())


# --- the order ruff's RUF022 keeps ------------------------------------------------------------


def _ruf022_key(name: str) -> tuple[int, list[int | str]]:
    """SCREAMING_SNAKE_CASE, then CamelCase, then the rest; a natural sort within each group."""
    if len(name) > 1 and name.isupper():
        group = 0
    elif name[:1].isupper():
        group = 1
    else:
        group = 2
    return group, [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


# --- the checks --------------------------------------------------------------------------------


def _problems(package: str) -> list[str]:
    init = REPOSITORY.joinpath(*package.split("."), "__init__.py")
    declared = _declared_all(package)
    if declared is None:  # report what it should list too
        return [f"{init.relative_to(REPOSITORY)} has no __all__", *_unlisted(package, init, [])]
    if not isinstance(declared, list | tuple) or not all(isinstance(n, str) for n in declared):
        return [f"{package}.__all__ must be a list of strings, not {declared!r}"]
    names: list[str] = list(declared)
    problems = [
        f"{name!r} is listed {count} times" for name, count in Counter(names).items() if count > 1
    ]
    if names != sorted(names, key=_ruf022_key):
        problems.append(
            f"__all__ is not sorted as ruff (RUF022) sorts it: {sorted(names, key=_ruf022_key)}"
        )
    module = importlib.import_module(package)
    for name in names:
        if not hasattr(module, name) and not _is_module(f"{package}.{name}"):
            problems.append(f"{name!r} is listed but cannot be imported from {package}")
    return problems + _unlisted(package, init, names)


def _unlisted(package: str, init: Path, names: list[str]) -> list[str]:
    """Public names bound in the `__init__`, or imported by other packages, that are not listed."""
    problems = []
    for name in sorted(_bound_names(ast.parse(init.read_text())) - set(names)):
        if not name.startswith("_"):
            problems.append(f"{name!r} is defined or imported in the __init__ but not listed")
    for use in CROSS_IMPORTS:
        if _owning_package(use.module) == package and use.name not in names:
            problems.append(
                f"{use.path}:{use.line} imports {use.name!r} from {use.module}, but {package} does"
                " not list it: add it to __all__ (and import it into the __init__), or keep it"
                " inside the package"
            )
    return problems


@pytest.mark.parametrize(
    "package",
    [
        pytest.param(p, marks=pytest.mark.xfail(reason=PENDING[p], strict=True))
        if p in PENDING
        else p
        for p in PACKAGES
    ],
)
def test_all_lists_exactly_the_public_names(package: str) -> None:
    problems = _problems(package)
    assert not problems, f"{package}:\n  " + "\n  ".join(problems)


def test_every_source_tree_has_packages() -> None:
    """The walk found the packages (a moved tree would otherwise check nothing)."""
    assert set(SOURCE_TREES) <= set(PACKAGES)
    assert len(PACKAGES) > len(SOURCE_TREES)
    assert set(PENDING) <= set(PACKAGES), "a PENDING entry names a package that is gone"


def test_the_cross_package_scan_sees_imports() -> None:
    """The scan reads importers in every source tree and in e2e (an empty scan would make the
    cross-package check vacuous), and never the unit tests."""
    trees = {use.path.partition("/")[0] for use in CROSS_IMPORTS}
    assert {*SOURCE_TREES, "e2e"} <= trees
    assert "tests" not in trees
