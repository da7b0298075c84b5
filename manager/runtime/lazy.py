"""Package ``__init__`` modules that list many public names but import none of them up front.

A package's ``__all__`` is its public surface, but importing every listed module whenever any
submodule is imported makes every command pay for the whole stack: a command that only prints its
version would import the runtime, aiohttp and kr8s. A lazy package writes its public names as any
package does, once as an import and once in ``__all__``, with the imports under ``if
TYPE_CHECKING`` so type checkers and readers see them and the interpreter does not run them.
``lazy_exports`` reads those imports from the package's own source to know where each name lives; a
name is imported on first access (PEP 562 module ``__getattr__``) and then cached in the package's
namespace.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

__all__ = ["lazy_exports", "type_checking_imports"]


def lazy_exports(
    package: str, sources: Mapping[str, tuple[str, ...]] | None = None
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``: by default its ``if TYPE_CHECKING``
    imports say where each name lives; ``sources`` (module -> names) says it instead."""
    if sources is None:
        sources = type_checking_imports(Path(str(sys.modules[package].__file__)).read_text())
    origin = {name: module for module, names in sources.items() for name in names}

    def __getattr__(name: str) -> object:
        module = origin.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)  # later lookups skip __getattr__
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *origin})

    return __getattr__, __dir__


def type_checking_imports(source: str) -> dict[str, tuple[str, ...]]:
    """Module -> names of the absolute ``from module import name`` statements in the top-level
    ``if TYPE_CHECKING`` (or ``if _TYPE_CHECKING``) blocks of ``source``."""
    imports: dict[str, tuple[str, ...]] = {}
    for statement in ast.parse(source).body:
        if isinstance(statement, ast.If) and _names_type_checking(statement.test):
            for node in statement.body:
                if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    # `import A as A` (a re-export for type checkers) is A; other aliases are not
                    # lazy names.
                    names = tuple(a.name for a in node.names if a.asname in (None, a.name))
                    imports[node.module] = imports.get(node.module, ()) + names
    return imports


def _names_type_checking(test: ast.expr) -> bool:
    return isinstance(test, ast.Name) and test.id.lstrip("_") == "TYPE_CHECKING"
