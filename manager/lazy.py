"""Package ``__init__`` modules that list many public names but import none of them up front.

A package's ``__all__`` is its public surface, but importing every listed module whenever any
submodule is imported makes every command pay for the whole stack: ``dynamo-operator version``
imported the manager core, aiohttp and kr8s. With ``lazy_exports`` a package names where each
public name lives; the name is imported on first access (PEP 562 module ``__getattr__``) and then
cached in the package's namespace. The package also imports the same names under ``if
TYPE_CHECKING`` so type checkers and readers see ordinary imports.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, sources: Mapping[str, tuple[str, ...]]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``, given module -> names defined there."""
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
