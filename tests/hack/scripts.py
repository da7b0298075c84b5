"""hack/'s scripts for the tests: load a Python script as a module (the scripts run directly, they
are no importable package), and list the shell scripts of the repository's tooling."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
HACK = ROOT / "hack"
SHELL_TREES = (".ci", "hack", "deploy")
"""Where the repository's shell scripts live (entry scripts, build steps, sourced libraries)."""


def load_script(relative: str) -> ModuleType:
    path = HACK / relative
    spec = importlib.util.spec_from_file_location(path.stem.replace("-", "_"), path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def shell_scripts() -> list[Path]:
    """Every shell script under SHELL_TREES, relative to the root: a file run by sh or bash (its
    shebang), or sourced by one (`.sh`, or a `# shellcheck shell=` directive)."""
    found = []
    for tree in SHELL_TREES:
        for path in sorted((ROOT / tree).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and _is_shell(path):
                found.append(path.relative_to(ROOT))
    return found


def is_bash_program(path: Path) -> bool:
    """A script run by bash (not a file other scripts source)."""
    first = (ROOT / path).read_bytes().split(b"\n", 1)[0]
    return first.startswith(b"#!") and first.split(b"/")[-1].split()[-1] == b"bash"


def _is_shell(path: Path) -> bool:
    head = path.read_bytes()[:200]
    first = head.split(b"\n", 1)[0]
    if first.startswith(b"#!"):
        return first.split(b"/")[-1].split()[-1] in (b"sh", b"bash")
    return path.suffix == ".sh" or b"# shellcheck shell=" in head
